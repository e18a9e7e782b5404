package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchyard-gw/switchyard/internal/backoff"
	"github.com/switchyard-gw/switchyard/internal/events"
)

var _ events.Source = (*Store)(nil)

// changesLock is the advisory lock that orders writers of the change feed
// on PostgreSQL, so that sequence order is commit order and a reader that
// has seen seq N can never later find a committed N-1.
const changesLock = 7469361734

// recordChange appends a change in tx and, on PostgreSQL, notifies
// listeners when tx commits.
func (s *Store) recordChange(ctx context.Context, tx *sql.Tx, kind, ref string) error {
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(changesLock)); err != nil {
			return fmt.Errorf("lock change feed: %w", err)
		}
	}
	var seq int64
	err := tx.QueryRowContext(ctx,
		`INSERT INTO changes (kind, ref, created_at) VALUES ($1, $2, $3) RETURNING seq`,
		kind, ref, millis(s.now())).Scan(&seq)
	if err != nil {
		return fmt.Errorf("record change: %w", err)
	}
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, s.channel, strconv.FormatInt(seq, 10)); err != nil {
			return fmt.Errorf("notify change: %w", err)
		}
	}
	return nil
}

// LatestChange returns the sequence number of the newest change, 0 when
// there is none.
func (s *Store) LatestChange(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM changes`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read change feed: %w", err)
	}
	return seq.Int64, nil
}

// ChangesSince returns up to 1000 changes after seq, oldest first.
func (s *Store) ChangesSince(ctx context.Context, seq int64) ([]events.Change, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT seq, kind, ref FROM changes WHERE seq > $1 ORDER BY seq LIMIT 1000`, seq)
	if err != nil {
		return nil, fmt.Errorf("read change feed: %w", err)
	}
	defer rows.Close()
	var out []events.Change
	for rows.Next() {
		var c events.Change
		if err := rows.Scan(&c.Seq, &c.Kind, &c.Ref); err != nil {
			return nil, fmt.Errorf("read change feed: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Signal sends on wake whenever another process may have written changes:
// on PostgreSQL when a NOTIFY arrives, on SQLite when PRAGMA data_version
// (which moves on every commit by another connection) changes. It returns
// when ctx ends.
func (s *Store) Signal(ctx context.Context, wake chan<- struct{}) {
	if s.postgres {
		s.listen(ctx, wake)
		return
	}
	s.pollDataVersion(ctx, wake)
}

func notify(wake chan<- struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

func (s *Store) pollDataVersion(ctx context.Context, wake chan<- struct{}) {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	last := int64(-1)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if conn == nil {
			c, err := s.db.Conn(ctx)
			if err != nil {
				continue
			}
			conn = c
			last = -1
		}
		var v int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			conn.Close()
			conn = nil
			continue
		}
		if last >= 0 && v != last {
			notify(wake)
		}
		last = v
	}
}

// Reconnect waits of the LISTEN connection: from a few milliseconds, so
// that a server back from a restart is heard again at once, to 50 ms, so
// that a key revoked just as it comes back is refused within 100 ms
// (issue 13). Attempts against a server that is down are cheap refused
// connections; the outage is logged once, not per attempt.
const (
	listenRetryMin = 5 * time.Millisecond
	listenRetryMax = 50 * time.Millisecond
	// listenConnectTimeout bounds one connection attempt, so that a
	// server that does not answer does not hold up the next one.
	listenConnectTimeout = 5 * time.Second
)

// listen holds a dedicated connection that LISTENs on the store's channel,
// reconnecting with a jittered backoff; after each (re)connect it wakes
// the reader once so that nothing sent while disconnected is missed.
func (s *Store) listen(ctx context.Context, wake chan<- struct{}) {
	retry := backoff.Backoff{Min: listenRetryMin, Max: listenRetryMax}
	var lost time.Time // when the connection was lost; zero while listening
	attempts := 0
	for ctx.Err() == nil {
		conn, err := s.listenConn(ctx)
		if err == nil {
			if !lost.IsZero() {
				s.log.Warn("listening for changes again", "after", time.Since(lost), "attempts", attempts)
			}
			lost, attempts = time.Time{}, 0
			retry.Reset()
			notify(wake)
			err = waitNotifications(ctx, conn, wake)
			closeConn(ctx, conn)
		}
		if ctx.Err() != nil {
			return
		}
		if lost.IsZero() {
			lost = time.Now()
			s.log.Warn("listen for changes: connection lost, reconnecting", "err", err)
		}
		attempts++
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry.Next()):
		}
	}
}

// listenConn connects and LISTENs on the store's channel.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, listenConnectTimeout)
	defer cancel()
	conn, err := pgx.Connect(cctx, s.url)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(cctx, "LISTEN "+quoteIdent(s.channel)); err != nil {
		closeConn(ctx, conn)
		return nil, err
	}
	return conn, nil
}

// waitNotifications wakes the reader on every notification until the
// connection fails or ctx ends.
func waitNotifications(ctx context.Context, conn *pgx.Conn, wake chan<- struct{}) error {
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		notify(wake)
	}
}

func closeConn(ctx context.Context, conn *pgx.Conn) {
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	conn.Close(closeCtx)
}
