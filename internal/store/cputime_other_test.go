//go:build !unix

package store_test

import "time"

// cpuTime is not measured here: BenchmarkWriteUsage reports 0.
func cpuTime() time.Duration { return 0 }
