package limits_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/testing/redistest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// loader is a database with fixed committed spend.
type loader struct {
	calls   atomic.Int64
	account usd.Amount
	key     usd.Amount
	err     error
}

func (l *loader) MonthSpend(_ context.Context, accountID, keyID, period string) (usd.Amount, usd.Amount, error) {
	l.calls.Add(1)
	time.Sleep(time.Millisecond) // let concurrent callers pile up
	if l.err != nil {
		return 0, 0, l.err
	}
	k := l.key
	if keyID == "" {
		k = 0
	}
	return l.account, k, nil
}

// observer records the totals it is told.
type observer struct {
	mu   sync.Mutex
	seen []usd.Amount
}

func (o *observer) Observe(_, _ string, spend usd.Amount) {
	o.mu.Lock()
	o.seen = append(o.seen, spend)
	o.mu.Unlock()
}

func (o *observer) max() usd.Amount {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := usd.Amount(0)
	for _, s := range o.seen {
		m = max(m, s)
	}
	return m
}

func testSpend(t *testing.T, newSpend func(l limits.SpendLoader, o limits.SpendObserver) limits.Spend, settle func()) {
	ctx := context.Background()
	l := &loader{account: 5 * usd.USD, key: 2 * usd.USD}
	o := &observer{}
	s := newSpend(l, o)
	// Spend added before the first Month is the database's to count.
	s.AddSpend("acct_a", "key_a", "2026-11", usd.USD)
	settle()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			a, k, err := s.Month(ctx, "acct_a", "key_a", "2026-11")
			if err != nil || a != 5*usd.USD || k != 2*usd.USD {
				t.Errorf("Month = %v, %v, %v", a, k, err)
			}
		})
	}
	wg.Wait()
	if n := l.calls.Load(); n < 1 || n > 2 {
		t.Errorf("loaded %d times, want once (or twice for the no-key/key race)", n)
	}
	for range 100 {
		wg.Go(func() { s.AddSpend("acct_a", "key_a", "2026-11", usd.Cent) })
	}
	wg.Wait()
	settle()
	a, k, err := s.Month(ctx, "acct_a", "key_a", "2026-11")
	if err != nil || a != 6*usd.USD || k != 3*usd.USD {
		t.Errorf("after adds: Month = %v, %v, %v; want 6 and 3 USD", a, k, err)
	}
	if got := o.max(); got != 6*usd.USD {
		t.Errorf("observer's highest total = %v, want 6 USD", got)
	}
	// Another key of the same account starts from the database.
	if a, k, _ := s.Month(ctx, "acct_a", "key_b", "2026-11"); a != 6*usd.USD || k != 2*usd.USD {
		t.Errorf("other key: Month = %v, %v", a, k)
	}
	// A failing database is an error, not a zero.
	bad := newSpend(&loader{err: errors.New("down")}, nil)
	if _, _, err := bad.Month(ctx, "acct_b", "", "2026-11"); err == nil {
		t.Error("Month with a failing loader succeeded")
	}
}

func TestMemorySpend(t *testing.T) {
	testSpend(t, func(l limits.SpendLoader, o limits.SpendObserver) limits.Spend {
		return limits.NewMemorySpend(l, o)
	}, func() {})
}

// redisClient returns a client of the test Redis and a fresh key prefix,
// or skips.
func redisClient(t *testing.T) (*redis.Client, string) {
	t.Helper()
	opt, prefix := redistest.Options(t)
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c, prefix
}

func TestRedisSpend(t *testing.T) {
	c, prefix := redisClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	var spends []*limits.RedisSpend
	testSpend(t, func(l limits.SpendLoader, o limits.SpendObserver) limits.Spend {
		s := limits.NewRedisSpend(c, prefix, l, o, nil, nil)
		spends = append(spends, s)
		wg.Go(func() { s.Run(ctx) })
		return s
	}, func() { time.Sleep(200 * time.Millisecond) })
}

func TestRedisSpendSharedByReplicas(t *testing.T) {
	c, prefix := redisClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	l := &loader{account: usd.USD}
	o := &observer{}
	var reps []*limits.RedisSpend
	for range 3 {
		s := limits.NewRedisSpend(c, prefix, l, o, nil, nil)
		wg.Go(func() { s.Run(ctx) })
		if _, _, err := s.Month(ctx, "acct_r", "", "2026-11"); err != nil {
			t.Fatal(err)
		}
		reps = append(reps, s)
	}
	for i := range 300 {
		reps[i%3].AddSpend("acct_r", "", "2026-11", usd.Cent)
	}
	want := usd.USD + 300*usd.Cent
	deadline := time.Now().Add(5 * time.Second)
	for o.max() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := o.max(); got != want {
		t.Errorf("highest total seen = %v, want %v", got, want)
	}
	for _, s := range reps {
		if a, _, _ := s.Month(ctx, "acct_r", "", "2026-11"); a != want {
			t.Errorf("replica sees %v, want %v", a, want)
		}
	}
	// Each total is seen once: the observations are distinct.
	seen := map[usd.Amount]bool{}
	for _, s := range o.seen {
		if seen[s] {
			t.Errorf("total %v observed twice", s)
		}
		seen[s] = true
	}
}

func TestBudget(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	l := &loader{account: 10 * usd.USD, key: 4 * usd.USD}
	b := limits.NewBudget(limits.NewMemorySpend(l, nil), false, nil)
	for _, tc := range []struct {
		name          string
		acctLim, kLim usd.Amount
		wantScope     string
	}{
		{"no limits", 0, 0, ""},
		{"under both", 11 * usd.USD, 5 * usd.USD, ""},
		{"account reached", 10 * usd.USD, 0, "account"},
		{"key reached", 0, 4 * usd.USD, "key"},
		{"key over", 100 * usd.USD, 3 * usd.USD, "key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Check(ctx, now, "acct_a", "key_a", tc.acctLim, tc.kLim)
			var ob *limits.OverBudget
			if !errors.As(err, &ob) {
				if tc.wantScope != "" || err != nil {
					t.Fatalf("Check = %v, want scope %q", err, tc.wantScope)
				}
				return
			}
			if ob.Scope != tc.wantScope || !ob.Reset.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("OverBudget = %+v", ob)
			}
		})
	}
	// Next month starts from the database's (here the same) figures, and
	// December rolls over into January.
	dec := time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)
	var ob *limits.OverBudget
	if err := b.Check(ctx, dec, "acct_a", "key_a", 10*usd.USD, 0); !errors.As(err, &ob) || ob.Reset.Year() != 2027 || ob.Reset.Month() != 1 {
		t.Errorf("December: %v", err)
	}
	down := &loader{err: errors.New("redis down")}
	if err := limits.NewBudget(limits.NewMemorySpend(down, nil), false, nil).Check(ctx, now, "a", "k", usd.USD, 0); err != nil {
		t.Errorf("fail-open Check = %v", err)
	}
	if err := limits.NewBudget(limits.NewMemorySpend(down, nil), true, nil).Check(ctx, now, "a", "k", usd.USD, 0); !errors.Is(err, limits.ErrUnavailable) {
		t.Errorf("fail-closed Check = %v", err)
	}
}

// TestRedisSpendDown: with Redis away, the first call opens the breaker
// and the others fail at once, without trying Redis, until a probe finds
// it back (issue 13: one call a second paid for trying it).
func TestRedisSpendDown(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	b := limits.NewBreaker(limits.BreakerOptions{Probe: func(ctx context.Context) error { return c.Ping(ctx).Err() }, Log: slog.New(slog.DiscardHandler)})
	s := limits.NewRedisSpend(c, "sytest:", &loader{}, nil, b, nil)
	ctx := context.Background()
	if _, _, err := s.Month(ctx, "acct", "key", "2026-11"); err == nil || errors.Is(err, limits.ErrBackendDown) {
		t.Fatalf("Month with Redis away: %v, want Redis's error", err)
	}
	for range 100 {
		if _, _, err := s.Month(ctx, "acct", "key", "2026-11"); !errors.Is(err, limits.ErrBackendDown) {
			t.Fatalf("Month while down: %v, want ErrBackendDown", err)
		}
	}
	if st := b.Stats(); st.Up || st.Failures != 1 || st.Outages != 1 {
		t.Errorf("breaker %+v, want down after one failure", st)
	}
}
