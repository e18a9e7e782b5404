package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Session is a dashboard sign-in as stored: never its token, only the
// token's hash.
type Session struct {
	ID         string
	AccountID  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSeenAt time.Time
}

// NewSession is what CreateSession needs.
type NewSession struct {
	AccountID string
	// TokenHash is the hex SHA-256 of the token the browser holds.
	TokenHash string
	CreatedAt time.Time
	ExpiresAt time.Time
	// Replaces is the token hash of the browser's earlier session, deleted
	// in the same transaction so that signing in rotates the session; ""
	// for none.
	Replaces string
}

const sessionColumns = `id, account_id, created_at, expires_at, last_seen_at`

// CreateSession stores a new session, deletes the one it replaces and
// every session that has expired by ns.CreatedAt. ErrNotFound when there
// is no such account.
func (s *Store) CreateSession(ctx context.Context, ns NewSession) (Session, error) {
	if ns.TokenHash == "" || !ns.ExpiresAt.After(ns.CreatedAt) {
		return Session{}, errors.New("create session: a token hash and an expiry after its creation are required")
	}
	ss := Session{
		ID:        newID("ses_"),
		AccountID: ns.AccountID,
		CreatedAt: ns.CreatedAt.UTC().Truncate(time.Millisecond),
		ExpiresAt: ns.ExpiresAt.UTC().Truncate(time.Millisecond),
	}
	ss.LastSeenAt = ss.CreatedAt
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = $1 OR expires_at <= $2`,
			ns.Replaces, millis(ss.CreatedAt)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = $1`, ss.AccountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("account %s: %w", ss.AccountID, ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, token_hash, account_id, created_at, expires_at, last_seen_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, ss.ID, ns.TokenHash, ss.AccountID,
			millis(ss.CreatedAt), millis(ss.ExpiresAt), millis(ss.LastSeenAt))
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	return ss, nil
}

// SessionByToken returns the session whose token has that hex hash,
// or ErrNotFound when there is none or it has expired by now.
func (s *Store) SessionByToken(ctx context.Context, tokenHash string, now time.Time) (Session, error) {
	var ss Session
	var created, expires, seen sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE token_hash = $1 AND expires_at > $2`,
		tokenHash, millis(now)).Scan(&ss.ID, &ss.AccountID, &created, &expires, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("read session: %w", err)
	}
	ss.CreatedAt, ss.ExpiresAt, ss.LastSeenAt = fromMillis(created), fromMillis(expires), fromMillis(seen)
	return ss, nil
}

// TouchSession sets the session's last_seen_at to t, never moving it
// backwards. An unknown ID is not an error: the session may have ended.
func (s *Store) TouchSession(ctx context.Context, id string, t time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < $1`,
		millis(t), id)
	if err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession ends the session whose token has that hex hash; ending
// one that does not exist is not an error.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// SetPassword replaces the account's password hash (see package password)
// and ends every session of the account, in one transaction: whoever
// knew the old password is signed out. ErrNotFound when there is no such
// account.
func (s *Store) SetPassword(ctx context.Context, accountID, hash string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET password_hash = $1 WHERE id = $2`, hash, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("account %s: %w", accountID, ErrNotFound)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = $1`, accountID)
		return err
	})
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}
