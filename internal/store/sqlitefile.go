package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// createSQLiteFile creates the file of a SQLite database path when it
// does not exist yet, readable and writable by its owner only (0600): it
// holds password, key and session hashes and everyone's usage. SQLite
// gives the -wal and -shm files it creates beside it the database file's
// mode. An existing file keeps its mode; in-memory databases have none.
func createSQLiteFile(url string) error {
	path, query, _ := strings.Cut(strings.TrimPrefix(url, "file:"), "?")
	if path == "" || path == ":memory:" || strings.Contains(query, "mode=memory") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	return f.Close()
}
