package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/events"
)

// Account is an owner of API keys.
type Account struct {
	ID        string
	Email     string
	IsAdmin   bool
	Disabled  bool
	CreatedAt time.Time
	Models    []string // allow-list; empty permits every model
	Limits    Limits
}

// NewAccount is what CreateAccount needs. PasswordHash is already hashed
// (see package password); empty means the owner cannot sign in yet.
type NewAccount struct {
	Email        string
	PasswordHash string
	IsAdmin      bool
}

// NormalizeEmail returns the form emails are stored and looked up in.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// CreateAccount stores a new account; ErrExists when the email is taken.
func (s *Store) CreateAccount(ctx context.Context, na NewAccount) (Account, error) {
	a := Account{
		ID:        newID("acct_"),
		Email:     NormalizeEmail(na.Email),
		IsAdmin:   na.IsAdmin,
		CreatedAt: s.now().UTC().Truncate(time.Millisecond),
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO accounts (id, email, password_hash, is_admin, created_at) VALUES ($1, $2, $3, $4, $5)`,
		a.ID, a.Email, na.PasswordHash, a.IsAdmin, millis(a.CreatedAt))
	if isUniqueViolation(err) {
		return Account{}, fmt.Errorf("account %s: %w", a.Email, ErrExists)
	}
	if err != nil {
		return Account{}, fmt.Errorf("create account: %w", err)
	}
	return a, nil
}

const accountColumns = `id, email, is_admin, disabled, created_at, allowed_models, ` + limitsColumns

func scanAccount(row interface{ Scan(...any) error }) (Account, error) {
	var a Account
	var created sql.NullInt64
	var models string
	var lim nullLimits
	dest := append([]any{&a.ID, &a.Email, &a.IsAdmin, &a.Disabled, &created, &models}, lim.dest()...)
	if err := row.Scan(dest...); err != nil {
		return Account{}, err
	}
	a.CreatedAt = fromMillis(created)
	a.Models = decodeList(models)
	a.Limits = lim.limits()
	return a, nil
}

// SetAccountModels replaces the account's model allow-list (empty permits
// every model) and tells every server.
func (s *Store) SetAccountModels(ctx context.Context, id string, models []string) error {
	if unstorable(id) {
		return fmt.Errorf("account %q: %w", id, ErrNotFound)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET allowed_models = $1 WHERE id = $2`, encodeList(models), id)
		if err != nil {
			return fmt.Errorf("set account models: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("account %s: %w", id, ErrNotFound)
		}
		return s.recordChange(ctx, tx, events.KindAccount, id)
	})
}

// SetAccountDisabled disables an account (its keys are refused and its
// owner cannot sign in) or enables it again, and tells every server.
// Disabling also ends the owner's dashboard sessions.
func (s *Store) SetAccountDisabled(ctx context.Context, id string, disabled bool) error {
	if unstorable(id) {
		return fmt.Errorf("account %q: %w", id, ErrNotFound)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled = $1 WHERE id = $2`, disabled, id)
		if err != nil {
			return fmt.Errorf("set account disabled: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("account %s: %w", id, ErrNotFound)
		}
		if disabled {
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = $1`, id); err != nil {
				return fmt.Errorf("end sessions of disabled account: %w", err)
			}
		}
		return s.recordChange(ctx, tx, events.KindAccount, id)
	})
}

// AccountByEmail returns the account with that email, or ErrNotFound.
func (s *Store) AccountByEmail(ctx context.Context, email string) (Account, error) {
	if unstorable(email) {
		return Account{}, fmt.Errorf("account %q: %w", email, ErrNotFound)
	}
	row := s.db.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = $1`, NormalizeEmail(email))
	return oneAccount(row, email)
}

// AccountByID returns the account with that ID, or ErrNotFound.
func (s *Store) AccountByID(ctx context.Context, id string) (Account, error) {
	if unstorable(id) {
		return Account{}, fmt.Errorf("account %q: %w", id, ErrNotFound)
	}
	row := s.db.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id)
	return oneAccount(row, id)
}

func oneAccount(row *sql.Row, name string) (Account, error) {
	a, err := scanAccount(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, fmt.Errorf("account %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return Account{}, fmt.Errorf("read account: %w", err)
	}
	return a, nil
}

// ListAccounts returns every account, oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]Account, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// PasswordHash returns the stored password hash of the account with that
// email ("" when none is set), or ErrNotFound.
func (s *Store) PasswordHash(ctx context.Context, email string) (string, error) {
	var h string
	err := s.db.QueryRowContext(ctx, `SELECT password_hash FROM accounts WHERE email = $1`, NormalizeEmail(email)).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("account %s: %w", email, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	return h, nil
}
