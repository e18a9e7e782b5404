// Package migrations holds the embedded, append-only SQL migrations of each
// dialect and applies them, each in one transaction with its version.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// Migration is one numbered SQL script.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// List returns the migrations of dialect ("sqlite" or "postgres") in order.
func List(dialect string) ([]Migration, error) {
	entries, err := fs.ReadDir(files, dialect)
	if err != nil {
		return nil, fmt.Errorf("migrations for %s: %w", dialect, err)
	}
	var out []Migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration file %s: name must be NNNN_name.sql", e.Name())
		}
		body, err := files.ReadFile(path.Join(dialect, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migrations for %s: expected version %d, found %d", dialect, i+1, m.Version)
		}
	}
	return out, nil
}

// Latest returns the newest version known to this binary.
func Latest(dialect string) int {
	ms, err := List(dialect)
	if err != nil {
		return 0
	}
	return len(ms)
}

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`

// Apply brings db up to the latest version of dialect and returns how many
// migrations it applied. Several processes may call it at once: on
// PostgreSQL an advisory lock serialises them, on SQLite the immediate
// transaction does.
func Apply(ctx context.Context, db *sql.DB, dialect string) (int, error) {
	ms, err := List(dialect)
	if err != nil {
		return 0, err
	}
	applied := 0
	for _, m := range ms {
		did, err := applyOne(ctx, db, dialect, m)
		if err != nil {
			return applied, fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		if did {
			applied++
		}
	}
	return applied, nil
}

func applyOne(ctx context.Context, db *sql.DB, dialect string, m Migration) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if dialect == "postgres" {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7469361733)`); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, createVersionTable); err != nil {
		return false, fmt.Errorf("create schema_migrations: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, m.Version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.Version, m.Name, time.Now().UnixMilli()); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// Current returns the highest applied version, 0 for an empty database.
func Current(ctx context.Context, db *sql.DB, dialect string) (int, error) {
	exists := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if dialect == "postgres" {
		exists = `SELECT COUNT(*) FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
	}
	var n int
	if err := db.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	return int(v.Int64), nil
}
