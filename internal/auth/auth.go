package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	KeyID     string
	AccountID string
	// AccountModels and KeyModels are the allow-lists of model IDs (a
	// trailing "*" matches a prefix); empty permits every model.
	AccountModels []string
	KeyModels     []string
	// AccountLimits and KeyLimits are the limits stored for the account
	// and the key; zero values are unlimited.
	AccountLimits Limits
	KeyLimits     Limits
}

// Limits are rate and spend limits; 0 means unlimited.
type Limits struct {
	RPM           int64
	TPM           int64
	MonthlyBudget usd.Amount
}

// KeyState is what a KeyLookup knows about a key.
type KeyState struct {
	Principal
	Revoked         bool
	AccountDisabled bool
}

// KeyLookup finds a key by its hash. It returns ErrUnknown when there is
// no such key; any other error means the answer is not known.
type KeyLookup interface {
	LookupKey(ctx context.Context, hash apikey.Hash) (KeyState, error)
}

// Toucher records when keys were last used.
type Toucher interface {
	TouchKeys(ctx context.Context, used map[string]time.Time) error
}

// Options configure an Authenticator.
type Options struct {
	// LastUsedInterval is the least time between two last_used_at
	// writes of one key (default 1m).
	LastUsedInterval time.Duration
	// NegativeCacheSize bounds remembered unknown keys (default 10000).
	NegativeCacheSize int
	Logger            *slog.Logger
	Now               func() time.Time
}

// Authenticator authenticates requests against a cache of keys that is
// filled on first use and invalidated by events (Invalidate), never by
// timers: in the steady state no request reads the database.
type Authenticator struct {
	lookup   KeyLookup
	interval time.Duration
	negMax   int64
	log      *slog.Logger
	now      func() time.Time
	flights  singleflight.Group
	touches  chan touch
	dropped  atomic.Int64 // last-used updates dropped because the queue was full
	// hits and misses count the look-ups the cache answered and those
	// that asked the KeyLookup (or joined a look-up under way).
	hits, misses atomic.Int64

	cache sync.Map // apikey.Hash → *entry; read without locks

	// mu serialises cache writes with invalidations, so that a look-up
	// that started before an invalidation can never store its stale
	// answer after it (the generation check below).
	mu   sync.Mutex
	gen  uint64       // guarded by mu: bumped by every invalidation
	negs atomic.Int64 // number of negative entries in cache
}

type entry struct {
	state    KeyState
	err      error        // nil for an active key, else the 401 reason
	lastUsed atomic.Int64 // unix nanos of the last queued last_used_at write
}

type touch struct {
	keyID string
	at    time.Time
}

// New returns an Authenticator over lookup.
func New(lookup KeyLookup, opt Options) *Authenticator {
	a := &Authenticator{
		lookup:   lookup,
		interval: opt.LastUsedInterval,
		negMax:   int64(opt.NegativeCacheSize),
		log:      opt.Logger,
		now:      opt.Now,
		touches:  make(chan touch, 4096),
	}
	if a.interval <= 0 {
		a.interval = time.Minute
	}
	if opt.NegativeCacheSize == 0 {
		a.negMax = 10000
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Authenticate returns the principal for an Authorization header value, or
// one of the Err* reasons above, or another error when the key store could
// not be asked.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Principal, error) {
	hash, err := ParseHeader(header)
	if err != nil {
		return Principal{}, err
	}
	e, err := a.entry(ctx, hash)
	if err != nil {
		return Principal{}, err
	}
	if e.err != nil {
		return Principal{}, e.err
	}
	a.noteUse(e)
	return e.state.Principal, nil
}

func (a *Authenticator) entry(ctx context.Context, hash apikey.Hash) (*entry, error) {
	if v, ok := a.cache.Load(hash); ok {
		a.hits.Add(1)
		return v.(*entry), nil
	}
	a.misses.Add(1)
	v, err, _ := a.flights.Do(string(hash[:]), func() (any, error) {
		return a.fill(ctx, hash)
	})
	if err != nil {
		return nil, err
	}
	return v.(*entry), nil
}

// fill asks the lookup and caches the answer unless an invalidation ran
// meanwhile (then the answer is returned but not kept).
func (a *Authenticator) fill(ctx context.Context, hash apikey.Hash) (*entry, error) {
	a.mu.Lock()
	gen := a.gen
	a.mu.Unlock()

	// Detach from the caller: other requests may share this flight.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	st, err := a.lookup.LookupKey(lctx, hash)
	e := &entry{state: st}
	switch {
	case errors.Is(err, ErrUnknown):
		e.err = ErrUnknown
	case err != nil:
		return nil, fmt.Errorf("look up api key: %w", err)
	case st.Revoked:
		e.err = ErrRevoked
	case st.AccountDisabled:
		e.err = ErrDisabled
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen != gen {
		return e, nil
	}
	if e.err == ErrUnknown {
		if a.negs.Load() >= a.negMax {
			a.dropNegativesLocked()
		}
		a.negs.Add(1)
	}
	a.cache.Store(hash, e)
	return e, nil
}

// CacheStats returns how many key look-ups the cache answered (hits) and
// how many it did not (misses) so far.
func (a *Authenticator) CacheStats() (hits, misses int64) {
	return a.hits.Load(), a.misses.Load()
}

// dropNegativesLocked forgets every remembered unknown key.
func (a *Authenticator) dropNegativesLocked() {
	a.cache.Range(func(k, v any) bool {
		if v.(*entry).err == ErrUnknown {
			a.cache.Delete(k)
		}
		return true
	})
	a.negs.Store(0)
}

// Invalidate forgets what is cached for the key with this hash; the next
// request with it reads the store. Call it after a key is revoked or
// created, in this process or (through the change feed) any other.
func (a *Authenticator) Invalidate(hash apikey.Hash) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gen++
	if v, loaded := a.cache.LoadAndDelete(hash); loaded && v.(*entry).err == ErrUnknown {
		a.negs.Add(-1)
	}
}

// InvalidateAccount forgets every cached key of the account.
func (a *Authenticator) InvalidateAccount(accountID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gen++
	a.cache.Range(func(k, v any) bool {
		if v.(*entry).state.AccountID == accountID {
			a.cache.Delete(k)
		}
		return true
	})
}

// noteUse queues a last_used_at write when the key's last one is older
// than the interval. It never blocks: a full queue drops the update.
func (a *Authenticator) noteUse(e *entry) {
	now := a.now()
	last := e.lastUsed.Load()
	if now.UnixNano()-last < int64(a.interval) || !e.lastUsed.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	select {
	case a.touches <- touch{keyID: e.state.KeyID, at: now}:
	default:
		a.dropped.Add(1)
	}
}

// RunTouches writes queued last_used_at updates through t in batches until
// ctx ends, then writes what is left. Run it in one goroutine.
func (a *Authenticator) RunTouches(ctx context.Context, t Toucher) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	pending := map[string]time.Time{}
	flush := func(ctx context.Context) {
		if len(pending) == 0 {
			return
		}
		if err := t.TouchKeys(ctx, pending); err != nil {
			a.log.Warn("write key last_used_at", "err", err, "keys", len(pending))
			return // kept; tried again on the next tick
		}
		clear(pending)
	}
	for {
		select {
		case u := <-a.touches:
			if u.at.After(pending[u.keyID]) {
				pending[u.keyID] = u.at
			}
		case <-tick.C:
			flush(ctx)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			for len(a.touches) > 0 {
				u := <-a.touches
				pending[u.keyID] = u.at
			}
			flush(fctx)
			return
		}
	}
}
