//go:build unix

package store_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used (user and system),
// which BenchmarkWriteUsage divides by its rows: on a shared machine it
// varies less than the wall time. PostgreSQL's own work is not in it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
