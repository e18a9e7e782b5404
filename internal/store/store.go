// Package store keeps accounts, API keys and the change feed in SQLite or
// PostgreSQL, chosen by the database URL.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver

	"github.com/switchyard-gw/switchyard/internal/store/migrations"
)

// Errors callers branch on.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrRevoked       = errors.New("api key is revoked")
	ErrSchemaTooNew  = errors.New("database schema is newer than this binary")
	ErrSchemaTooOld  = errors.New("database schema is not up to date; run switchyard migrate")
	errUnknownScheme = errors.New("unknown database URL scheme")
)

// Options tune Open.
type Options struct {
	// MaxOpenConns caps the pool (default 16).
	MaxOpenConns int
	// Logger receives background errors (default slog.Default()).
	Logger *slog.Logger
	// ChangePoll is the interval of the SQLite change check (default 20ms).
	ChangePoll time.Duration
}

// Store is the gateway's database. Dialect differences are confined to the
// few methods that check s.postgres.
type Store struct {
	db       *sql.DB
	url      string
	postgres bool
	channel  string // PostgreSQL NOTIFY channel, named for the schema
	log      *slog.Logger
	poll     time.Duration
	now      func() time.Time

	stmtMu     sync.Mutex
	dailyStmts map[int]*sql.Stmt // by rows; guarded by stmtMu: see upsertDaily
	usageStmts map[int]*sql.Stmt // by rows; guarded by stmtMu: see usageInsert

	usageStaged atomic.Int64 // PostgreSQL batches that met a stored ID: see writeUsageCopy
}

// Open connects to the database named by url: a postgres:// URL, or else a
// SQLite file path (or file: URI). It does not migrate.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	s := &Store{url: url, log: opt.Logger, poll: opt.ChangePoll, now: time.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.poll <= 0 {
		s.poll = 20 * time.Millisecond
	}
	maxConns := opt.MaxOpenConns
	if maxConns <= 0 {
		maxConns = 16
	}
	var err error
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		s.postgres = true
		s.db, err = sql.Open("pgx", url)
	case strings.Contains(url, "://"):
		return nil, errUnknownScheme
	default:
		if err := createSQLiteFile(url); err != nil {
			return nil, err
		}
		s.db, err = sql.Open("sqlite", sqliteDSN(url))
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	s.db.SetMaxOpenConns(maxConns)
	s.db.SetMaxIdleConns(maxConns)
	s.db.SetConnMaxIdleTime(5 * time.Minute)
	if err := s.ping(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if s.postgres {
		var schema string
		if err := s.db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("read current schema: %w", err)
		}
		s.channel = "switchyard_changes_" + schema
	}
	return s, nil
}

// ping checks the connection. A new SQLite connection switches the file
// to WAL, which another process starting at the same moment can make
// fail with SQLITE_BUSY before the busy timeout applies: retry that for a
// few seconds.
func (s *Store) ping(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		err := s.db.PingContext(ctx)
		if err == nil || s.postgres || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// isBusy reports SQLite's SQLITE_BUSY and SQLITE_LOCKED.
func isBusy(err error) bool {
	var e interface{ Code() int }
	return errors.As(err, &e) && (e.Code()&0xff == 5 || e.Code()&0xff == 6)
}

// sqliteDSN turns a path into a modernc.org/sqlite DSN with the pragmas the
// gateway relies on: WAL, a busy timeout, foreign keys, and immediate write
// transactions so that concurrent writers queue instead of failing.
func sqliteDSN(path string) string {
	params := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(NORMAL)&_txlock=immediate"
	if !strings.HasPrefix(path, "file:") {
		path = "file:" + path
	}
	if strings.Contains(path, "?") {
		return path + "&" + params
	}
	return path + "?" + params
}

// Dialect returns "postgres" or "sqlite".
func (s *Store) Dialect() string {
	if s.postgres {
		return "postgres"
	}
	return "sqlite"
}

// Close closes the pool.
func (s *Store) Close() error {
	s.stmtMu.Lock()
	for _, st := range s.usageStmts {
		st.Close()
	}
	for _, st := range s.dailyStmts {
		st.Close()
	}
	s.stmtMu.Unlock()
	return s.db.Close()
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Migrate applies the embedded migrations and returns how many ran.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	n, err := migrations.Apply(ctx, s.db, s.Dialect())
	if err != nil {
		return n, err
	}
	return n, s.CheckSchema(ctx)
}

// CheckSchema returns nil only when the database is at exactly the version
// this binary knows; a server refuses to serve otherwise.
func (s *Store) CheckSchema(ctx context.Context) error {
	cur, err := migrations.Current(ctx, s.db, s.Dialect())
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := migrations.Latest(s.Dialect())
	switch {
	case cur > latest:
		return fmt.Errorf("%w: database at version %d, binary knows %d", ErrSchemaTooNew, cur, latest)
	case cur < latest:
		return fmt.Errorf("%w: database at version %d, binary needs %d", ErrSchemaTooOld, cur, latest)
	}
	return nil
}

// Storable reports whether s is text a row can hold on every backend:
// UTF-8 without NUL. PostgreSQL refuses the rest with an error.
func Storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// unstorable reports whether any of s is not Storable. Lookups by such an
// ID or email answer ErrNotFound without asking the database, as on
// SQLite, rather than PostgreSQL's error.
func unstorable(s ...string) bool {
	for _, v := range s {
		if !Storable(v) {
			return true
		}
	}
	return false
}

// newID returns a random identifier such as "key_4hx3n7q2w9rkdm5b".
func newID(prefix string) string {
	return prefix + strings.ToLower(rand.Text()[:16])
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid {
		return time.Time{}
	}
	return time.UnixMilli(ms.Int64).UTC()
}

// isUniqueViolation reports whether err is a unique constraint failure.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) {
		return pgErr.SQLState() == "23505"
	}
	var sqliteErr interface{ Code() int }
	if errors.As(err, &sqliteErr) {
		// SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555).
		return sqliteErr.Code() == 2067 || sqliteErr.Code() == 1555
	}
	return false
}

// encodeList stores a list of strings as a JSON array.
func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// decodeList reads what encodeList stored; nil for an empty list.
func decodeList(s string) []string {
	var l []string
	if json.Unmarshal([]byte(s), &l) != nil || len(l) == 0 {
		return nil
	}
	return l
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }
