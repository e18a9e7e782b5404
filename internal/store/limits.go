package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Limits are an account's or a key's rate and spend limits; 0 is
// unlimited (stored as NULL).
type Limits struct {
	RPM           int64      // requests per minute
	TPM           int64      // tokens per minute
	MonthlyBudget usd.Amount // spend per calendar month (UTC)
}

// LimitsUpdate is what SetLimits changes. A nil field is left as it is;
// a zero one is cleared (unlimited).
type LimitsUpdate struct {
	AccountID string
	KeyID     string // "" sets the account's own limits
	RPM       *int64
	TPM       *int64
	// MonthlyBudget is in pico-USD.
	MonthlyBudget *usd.Amount
}

// limitsColumns are the limit columns of accounts and api_keys, in the
// order scanLimits reads them.
const limitsColumns = `rpm, tpm, monthly_budget`

// nullLimits receives the limit columns of a row.
type nullLimits struct{ rpm, tpm, budget sql.NullInt64 }

func (n *nullLimits) dest() []any { return []any{&n.rpm, &n.tpm, &n.budget} }

func (n *nullLimits) limits() Limits {
	return Limits{RPM: n.rpm.Int64, TPM: n.tpm.Int64, MonthlyBudget: usd.Amount(n.budget.Int64)}
}

// SetLimits changes the limits of an account, or of one of its keys, and
// tells every server. ErrNotFound when the account has no such key (or
// there is no such account); negative values are refused.
func (s *Store) SetLimits(ctx context.Context, u LimitsUpdate) error {
	set, args, err := limitsAssignments(u)
	if err != nil {
		return fmt.Errorf("set limits: %w", err)
	}
	if unstorable(u.AccountID, u.KeyID) {
		return fmt.Errorf("set limits: key %q of account %q: %w", u.KeyID, u.AccountID, ErrNotFound)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if u.KeyID == "" {
			return s.setAccountLimitsTx(ctx, tx, u.AccountID, set, args)
		}
		return s.setKeyLimitsTx(ctx, tx, u.AccountID, u.KeyID, set, args)
	})
	if err != nil {
		return fmt.Errorf("set limits: %w", err)
	}
	return nil
}

func (s *Store) setAccountLimitsTx(ctx context.Context, tx *sql.Tx, accountID, set string, args []any) error {
	n := strconv.Itoa(len(args) + 1)
	res, err := tx.ExecContext(ctx, `UPDATE accounts SET `+set+` WHERE id = $`+n, append(args, accountID)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("account %s: %w", accountID, ErrNotFound)
	}
	return s.recordChange(ctx, tx, events.KindAccount, accountID)
}

func (s *Store) setKeyLimitsTx(ctx context.Context, tx *sql.Tx, accountID, keyID, set string, args []any) error {
	n1, n2 := strconv.Itoa(len(args)+1), strconv.Itoa(len(args)+2)
	var hash string
	err := tx.QueryRowContext(ctx,
		`UPDATE api_keys SET `+set+` WHERE id = $`+n1+` AND account_id = $`+n2+` RETURNING key_hash`,
		append(args, keyID, accountID)...).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("key %s of account %s: %w", keyID, accountID, ErrNotFound)
	}
	if err != nil {
		return err
	}
	return s.recordChange(ctx, tx, events.KindKey, hash)
}

// limitsAssignments returns the SET list of u's non-nil fields, with
// placeholders numbered from $1, and their values (NULL for 0).
func limitsAssignments(u LimitsUpdate) (string, []any, error) {
	var budget *int64
	if u.MonthlyBudget != nil {
		b := int64(*u.MonthlyBudget)
		budget = &b
	}
	var cols []string
	var args []any
	for _, f := range []struct {
		col string
		v   *int64
	}{{"rpm", u.RPM}, {"tpm", u.TPM}, {"monthly_budget", budget}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 {
			return "", nil, fmt.Errorf("%s must not be negative (0 clears it)", f.col)
		}
		args = append(args, sql.NullInt64{Int64: *f.v, Valid: *f.v != 0})
		cols = append(cols, f.col+" = $"+strconv.Itoa(len(args)))
	}
	if len(cols) == 0 {
		return "", nil, errors.New("no limit given")
	}
	return strings.Join(cols, ", "), args, nil
}
