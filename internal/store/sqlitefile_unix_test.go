//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestSQLiteFileMode checks that a new SQLite database, and the WAL and
// shared-memory files beside it, are readable by their owner only, under
// the usual umask 022 (issue 13: they were 0644). The umask is the
// process's: this test must not run in parallel.
func TestSQLiteFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := storetest.SQLiteURL(t)
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %o, want 600", filepath.Base(name), got)
		}
	}
}

// TestSQLiteFileModeKept checks that an existing database keeps its mode.
func TestSQLiteFileModeKept(t *testing.T) {
	path := storetest.SQLiteURL(t)
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), "file:"+path+"?cache=private", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want 640", fi.Mode().Perm(), err)
	}
}
