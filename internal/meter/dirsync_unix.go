//go:build unix

package meter

import "os"

// syncDir makes the entries of dir durable with sync (an fsync of the
// directory): a file created in it is found after a power loss only once
// its entry is on stable storage, however often the file was synced.
func syncDir(dir string, sync func(*os.File) error) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return sync(d)
}
