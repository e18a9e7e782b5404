package limits

import (
	"context"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// SpendLoader reads the spend already in the database for a calendar
// month ("2006-01"): the account's, and the key's when keyID is set.
type SpendLoader interface {
	MonthSpend(ctx context.Context, accountID, keyID, period string) (account, key usd.Amount, err error)
}

// SpendObserver is told an account's month-to-date spend after each
// addition (billing alerts). Observe must not block.
type SpendObserver interface {
	Observe(accountID, period string, spend usd.Amount)
}

// Spend keeps month-to-date spend per account and per key.
type Spend interface {
	// Month returns the spend of the account and of the key in period,
	// loading it from the database the first time.
	Month(ctx context.Context, accountID, keyID, period string) (account, key usd.Amount, err error)
	// AddSpend adds cost to the account's and the key's spend; it never
	// blocks. Spend not yet loaded by Month is not counted here: the
	// database has it, and Month reads it from there.
	AddSpend(accountID, keyID, period string, cost usd.Amount)
}

type spendKey struct {
	id     string // account or key ID
	period string
	isKey  bool
}

// MemorySpend is the Spend of a single process: counters in memory,
// loaded from the database once per account, key and month.
type MemorySpend struct {
	load    SpendLoader
	obs     SpendObserver
	flights singleflight.Group

	mu       sync.RWMutex
	counters map[spendKey]*atomic.Int64 // guarded by mu
}

var _ Spend = (*MemorySpend)(nil)

// NewMemorySpend returns an in-process Spend loading from load and
// telling obs (which may be nil) of every new account total.
func NewMemorySpend(load SpendLoader, obs SpendObserver) *MemorySpend {
	return &MemorySpend{load: load, obs: obs, counters: map[spendKey]*atomic.Int64{}}
}

func (s *MemorySpend) counter(k spendKey) *atomic.Int64 {
	s.mu.RLock()
	c := s.counters[k]
	s.mu.RUnlock()
	return c
}

// Month implements Spend.
func (s *MemorySpend) Month(ctx context.Context, accountID, keyID, period string) (usd.Amount, usd.Amount, error) {
	ak, kk := spendKey{accountID, period, false}, spendKey{keyID, period, true}
	a, k := s.counter(ak), s.counter(kk)
	if a == nil || k == nil && keyID != "" {
		_, err, _ := s.flights.Do(accountID+"\x00"+keyID+"\x00"+period, func() (any, error) {
			return nil, s.fill(ctx, ak, kk)
		})
		if err != nil {
			return 0, 0, err
		}
		a, k = s.counter(ak), s.counter(kk)
	}
	var key usd.Amount
	if k != nil {
		key = usd.Amount(k.Load())
	}
	return usd.Amount(a.Load()), key, nil
}

// fill loads the counters that are missing.
func (s *MemorySpend) fill(ctx context.Context, ak, kk spendKey) error {
	keyID := kk.id
	a, k, err := s.load.MonthSpend(ctx, ak.id, keyID, ak.period)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counters[ak] == nil {
		s.counters[ak] = newCounter(a)
	}
	if keyID != "" && s.counters[kk] == nil {
		s.counters[kk] = newCounter(k)
	}
	return nil
}

func newCounter(v usd.Amount) *atomic.Int64 {
	c := new(atomic.Int64)
	c.Store(int64(v))
	return c
}

// AddSpend implements Spend.
func (s *MemorySpend) AddSpend(accountID, keyID, period string, cost usd.Amount) {
	if c := s.counter(spendKey{keyID, period, true}); c != nil && keyID != "" {
		c.Add(int64(cost))
	}
	c := s.counter(spendKey{accountID, period, false})
	if c == nil {
		return
	}
	total := c.Add(int64(cost))
	if s.obs != nil {
		s.obs.Observe(accountID, period, usd.Amount(total))
	}
}
