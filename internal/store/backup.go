package store

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// ErrBackupPostgres reports a backup asked of a PostgreSQL store, which
// PostgreSQL's own tools make.
var ErrBackupPostgres = errors.New("backup copies SQLite databases; for PostgreSQL use pg_dump (or your provider's snapshots)")

// Backup writes a consistent copy of the SQLite database to path, online:
// VACUUM INTO reads one snapshot (writers go on meanwhile; the copy holds
// what was committed when it began) and writes it compacted. The file
// must not exist: it is created readable and writable by its owner only,
// as the database, and removed again when the copy fails.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.postgres {
		return ErrBackupPostgres
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO $1`, path); err != nil {
		os.Remove(path)
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}
