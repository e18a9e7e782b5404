//go:build !unix

package meter

import "os"

// syncDir does nothing where os.File cannot fsync a directory (Windows):
// there a new segment's entry is as durable as the file system makes it
// by itself.
func syncDir(string, func(*os.File) error) error { return nil }
