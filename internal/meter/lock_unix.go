//go:build unix

package meter

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f without waiting: a
// process holds the segments it writes and those it recovers, so no two
// processes ever replay the same file.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
