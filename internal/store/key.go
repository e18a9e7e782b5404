package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/switchyard-gw/switchyard/internal/events"
)

// Key states.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
)

// Key is an API key as stored: never the key itself, only its hash and a
// display hint.
type Key struct {
	ID         string
	AccountID  string
	Name       string
	Hint       string
	Hash       string // hex SHA-256 of the secret: identifies, never reveals, the key
	Status     string
	CreatedAt  time.Time
	RevokedAt  time.Time // zero while active
	LastUsedAt time.Time // zero until first use
	Models     []string  // allow-list; empty permits every model
	Limits     Limits
}

// NewKey is what CreateKey needs.
type NewKey struct {
	AccountID string
	Name      string
	Hash      string // hex SHA-256 of the key's secret part
	Hint      string
	// Models is the key's model allow-list; empty permits every model.
	Models []string
}

// KeyAuth is what authentication needs to know about a key.
type KeyAuth struct {
	KeyID           string
	AccountID       string
	Revoked         bool
	AccountDisabled bool
	AccountModels   []string
	KeyModels       []string
	AccountLimits   Limits
	KeyLimits       Limits
}

// CreateKey stores a new active key. The name must not be empty.
func (s *Store) CreateKey(ctx context.Context, nk NewKey) (Key, error) {
	if nk.Name == "" {
		return Key{}, errors.New("create key: a descriptive name is required")
	}
	k := Key{
		ID:        newID("key_"),
		AccountID: nk.AccountID,
		Name:      nk.Name,
		Hint:      nk.Hint,
		Hash:      nk.Hash,
		Status:    KeyActive,
		Models:    nk.Models,
		CreatedAt: s.now().UTC().Truncate(time.Millisecond),
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO api_keys (id, account_id, name, key_hash, hint, status, created_at, allowed_models)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			k.ID, k.AccountID, k.Name, nk.Hash, k.Hint, k.Status, millis(k.CreatedAt), encodeList(nk.Models))
		if err != nil {
			return err
		}
		// A server may remember this hash as unknown; tell it.
		return s.recordChange(ctx, tx, events.KindKey, nk.Hash)
	})
	if isUniqueViolation(err) {
		return Key{}, fmt.Errorf("create key: %w", ErrExists)
	}
	if err != nil {
		return Key{}, fmt.Errorf("create key: %w", err)
	}
	return k, nil
}

const keyColumns = `id, account_id, name, hint, key_hash, status, created_at, revoked_at, last_used_at, allowed_models, ` +
	limitsColumns

func scanKey(row interface{ Scan(...any) error }) (Key, error) {
	var k Key
	var created, revoked, used sql.NullInt64
	var models string
	var lim nullLimits
	dest := append([]any{&k.ID, &k.AccountID, &k.Name, &k.Hint, &k.Hash, &k.Status, &created, &revoked, &used, &models}, lim.dest()...)
	if err := row.Scan(dest...); err != nil {
		return Key{}, err
	}
	k.Models = decodeList(models)
	k.Limits = lim.limits()
	k.CreatedAt, k.RevokedAt, k.LastUsedAt = fromMillis(created), fromMillis(revoked), fromMillis(used)
	return k, nil
}

// KeyByID returns one key, or ErrNotFound.
func (s *Store) KeyByID(ctx context.Context, id string) (Key, error) {
	if unstorable(id) {
		return Key{}, fmt.Errorf("key %q: %w", id, ErrNotFound)
	}
	k, err := scanKey(s.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Key{}, fmt.Errorf("key %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Key{}, fmt.Errorf("read key: %w", err)
	}
	return k, nil
}

// ListKeys returns the account's keys, oldest first.
func (s *Store) ListKeys(ctx context.Context, accountID string) ([]Key, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey revokes the key with that ID for good and records the change so
// that every server drops it. ErrNotFound for an unknown ID, ErrRevoked
// when it was already revoked (the key stays revoked either way).
func (s *Store) RevokeKey(ctx context.Context, id string) (Key, error) {
	if unstorable(id) {
		return Key{}, fmt.Errorf("revoke key: key %q: %w", id, ErrNotFound)
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var hash, status string
		err := tx.QueryRowContext(ctx, `SELECT key_hash, status FROM api_keys WHERE id = $1`, id).Scan(&hash, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("key %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if status == KeyRevoked {
			return fmt.Errorf("key %s: %w", id, ErrRevoked)
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET status = $1, revoked_at = $2 WHERE id = $3 AND status = $4`,
			KeyRevoked, millis(now), id, KeyActive); err != nil {
			return err
		}
		return s.recordChange(ctx, tx, events.KindKey, hash)
	})
	if err != nil {
		return Key{}, fmt.Errorf("revoke key: %w", err)
	}
	return s.KeyByID(ctx, id)
}

// LookupKey returns what authentication needs for the key whose hex hash is
// given, or ErrNotFound.
func (s *Store) LookupKey(ctx context.Context, hash string) (KeyAuth, error) {
	var ka KeyAuth
	var status, keyModels, acctModels string
	var keyLim, acctLim nullLimits
	dest := append([]any{&ka.KeyID, &ka.AccountID, &status, &ka.AccountDisabled, &keyModels, &acctModels},
		append(keyLim.dest(), acctLim.dest()...)...)
	err := s.db.QueryRowContext(ctx,
		`SELECT k.id, k.account_id, k.status, a.disabled, k.allowed_models, a.allowed_models,
		        k.rpm, k.tpm, k.monthly_budget, a.rpm, a.tpm, a.monthly_budget
		 FROM api_keys k JOIN accounts a ON a.id = k.account_id
		 WHERE k.key_hash = $1`, hash).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return KeyAuth{}, ErrNotFound
	}
	if err != nil {
		return KeyAuth{}, fmt.Errorf("look up key: %w", err)
	}
	ka.Revoked = status != KeyActive
	ka.KeyModels, ka.AccountModels = decodeList(keyModels), decodeList(acctModels)
	ka.KeyLimits, ka.AccountLimits = keyLim.limits(), acctLim.limits()
	return ka, nil
}

// TouchKeys sets last_used_at for each key ID to the given time, never
// moving it backwards.
func (s *Store) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for id, t := range used {
			_, err := tx.ExecContext(ctx,
				`UPDATE api_keys SET last_used_at = $1
				 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, millis(t), id)
			if err != nil {
				return fmt.Errorf("touch key: %w", err)
			}
		}
		return nil
	})
}

// inTx runs fn in a transaction and commits when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
