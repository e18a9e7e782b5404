package limits

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// OverBudget reports that a monthly spend limit is reached.
type OverBudget struct {
	Scope string // "account" or "key"
	ID    string
	Limit usd.Amount
	Spent usd.Amount
	// Reset is when the next period starts (the first of next month, UTC).
	Reset time.Time
}

func (e *OverBudget) Error() string {
	return fmt.Sprintf("monthly spend limit of %s %s reached: %s of %s", e.Scope, e.ID, e.Spent.Dollars(), e.Limit.Dollars())
}

// Budget enforces monthly spend limits against a Spend.
type Budget struct {
	spend      Spend
	failClosed bool
	log        *slog.Logger
	failures   atomic.Int64
	periods    meter.Periods // names the months checked
}

// NewBudget returns a Budget over spend. When spend cannot be read (Redis
// down), requests go on unless failClosed, and the failure is counted.
func NewBudget(spend Spend, failClosed bool, log *slog.Logger) *Budget {
	if log == nil {
		log = slog.Default()
	}
	return &Budget{spend: spend, failClosed: failClosed, log: log}
}

// Spend returns the Spend the budget reads.
func (b *Budget) Spend() Spend { return b.spend }

// Failures returns how many checks could not read the spend.
func (b *Budget) Failures() int64 { return b.failures.Load() }

// Check returns *OverBudget when the account's or the key's spend in the
// month of now has reached its limit (0 = none). It loads the month's
// spend even when there is no limit, so that AddSpend counts from the
// first request on (billing alerts need the totals).
func (b *Budget) Check(ctx context.Context, now time.Time, accountID, keyID string, accountLimit, keyLimit usd.Amount) error {
	now = now.UTC()
	acct, key, err := b.spend.Month(ctx, accountID, keyID, b.periods.Of(now))
	if err != nil {
		if b.failures.Add(1)%100 == 1 {
			b.log.Warn("spend unavailable for the budget check", "err", err, "fail_closed", b.failClosed)
		}
		if b.failClosed {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return nil
	}
	reset := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	switch {
	case accountLimit > 0 && acct >= accountLimit:
		return &OverBudget{Scope: "account", ID: accountID, Limit: accountLimit, Spent: acct, Reset: reset}
	case keyLimit > 0 && key >= keyLimit:
		return &OverBudget{Scope: "key", ID: keyID, Limit: keyLimit, Spent: key, Reset: reset}
	}
	return nil
}

// IsOverBudget reports whether err is an *OverBudget.
func IsOverBudget(err error) bool {
	var ob *OverBudget
	return errors.As(err, &ob)
}
