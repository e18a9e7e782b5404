// Package storetest gives tests a fresh, migrated store on every backend:
// SQLite always, PostgreSQL when SWITCHYARD_TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// PostgresEnv names the variable that points tests at a PostgreSQL server.
const PostgresEnv = "SWITCHYARD_TEST_POSTGRES_URL"

// Backend is one database a test can run against.
type Backend struct {
	Name string // "sqlite" or "postgres"
	URL  string // a fresh, empty database
}

// Backends returns a fresh SQLite file and, when configured, a fresh
// PostgreSQL schema; both are removed when t ends.
func Backends(t testing.TB) []Backend {
	bs := []Backend{{Name: "sqlite", URL: SQLiteURL(t)}}
	if os.Getenv(PostgresEnv) != "" {
		bs = append(bs, Backend{Name: "postgres", URL: PostgresURL(t)})
	} else {
		t.Logf("%s not set: PostgreSQL backend skipped", PostgresEnv)
	}
	return bs
}

// Each runs fn as a subtest once per backend.
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// SQLiteURL returns the path of a new SQLite file in t's temp directory.
func SQLiteURL(t testing.TB) string {
	return filepath.Join(t.TempDir(), "switchyard.db")
}

// PostgresURL creates a schema of its own on the test server and returns a
// URL whose search_path selects it, so concurrent runs never collide. The
// schema is dropped when t ends. It skips t when the server is not set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("%s not set", PostgresEnv)
	}
	schema := "sy_test_" + strings.ToLower(rand.Text()[:12])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		db.Close()
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Logf("drop test schema: %v", err)
		}
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens and migrates the store at url; it is closed when t ends.
func Open(t testing.TB, url string) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, url, store.Options{ChangePoll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}
