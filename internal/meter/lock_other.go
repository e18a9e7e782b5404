//go:build !unix

package meter

import "os"

// lockFile is a no-op where flock is missing: only one process may use a
// journal directory there.
func lockFile(*os.File) error { return nil }
