package auth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
)

// fakeLookup is an in-memory key store that counts look-ups.
type fakeLookup struct {
	mu    sync.Mutex
	keys  map[apikey.Hash]KeyState
	calls atomic.Int64
	block chan struct{} // when set, LookupKey waits for it after reading
	fail  error
}

func (f *fakeLookup) LookupKey(ctx context.Context, h apikey.Hash) (KeyState, error) {
	f.calls.Add(1)
	f.mu.Lock()
	st, ok := f.keys[h]
	fail := f.fail
	f.mu.Unlock()
	if f.block != nil {
		<-f.block
	}
	if fail != nil {
		return KeyState{}, fail
	}
	if !ok {
		return KeyState{}, ErrUnknown
	}
	return st, nil
}

func (f *fakeLookup) set(h apikey.Hash, st KeyState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[h] = st
}

func newFake(key string) (*fakeLookup, apikey.Hash) {
	h, _ := apikey.Parse(key)
	return &fakeLookup{keys: map[apikey.Hash]KeyState{
		h: {Principal: Principal{KeyID: "key_1", AccountID: "acct_1"}},
	}}, h
}

func TestAuthenticateCachesAndRevokes(t *testing.T) {
	ctx := context.Background()
	f, h := newFake(goodKey)
	a := New(f, Options{})
	for range 100 {
		p, err := a.Authenticate(ctx, "Bearer "+goodKey)
		if err != nil || p.KeyID != "key_1" || p.AccountID != "acct_1" {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("%d look-ups for 100 requests, want 1 (steady state reads no database)", n)
	}
	if hits, misses := a.CacheStats(); hits != 99 || misses != 1 {
		t.Errorf("cache stats: %d hits, %d misses; want 99, 1", hits, misses)
	}

	f.set(h, KeyState{Principal: Principal{KeyID: "key_1", AccountID: "acct_1"}, Revoked: true})
	a.Invalidate(h)
	if _, err := a.Authenticate(ctx, "Bearer "+goodKey); !errors.Is(err, ErrRevoked) {
		t.Errorf("after revoke: %v, want ErrRevoked", err)
	}
	// The short form is the same key, and just as revoked.
	if _, err := a.Authenticate(ctx, "Bearer sg-"+goodKey[len("sk-switchyard-"):]); !errors.Is(err, ErrRevoked) {
		t.Errorf("sg- form after revoke: %v, want ErrRevoked", err)
	}
}

func TestAuthenticateUnknownAndDisabled(t *testing.T) {
	ctx := context.Background()
	f, h := newFake(goodKey)
	a := New(f, Options{})
	other := "sk-switchyard-" + "Z1234567890123456789012345678901"
	for range 3 {
		if _, err := a.Authenticate(ctx, "Bearer "+other); !errors.Is(err, ErrUnknown) {
			t.Fatalf("unknown key: %v", err)
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("unknown key looked up %d times, want 1 (negative cache)", n)
	}
	f.set(h, KeyState{Principal: Principal{KeyID: "key_1", AccountID: "acct_1"}, AccountDisabled: true})
	a.InvalidateAccount("acct_1")
	if _, err := a.Authenticate(ctx, "Bearer "+goodKey); !errors.Is(err, ErrDisabled) {
		t.Errorf("disabled account: %v", err)
	}
}

func TestLookupFailureIsNotCached(t *testing.T) {
	ctx := context.Background()
	f, _ := newFake(goodKey)
	f.fail = errors.New("database down")
	a := New(f, Options{})
	_, err := a.Authenticate(ctx, "Bearer "+goodKey)
	if err == nil || errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v, want a lookup failure", err)
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	if _, err := a.Authenticate(ctx, "Bearer "+goodKey); err != nil {
		t.Errorf("after recovery: %v", err)
	}
}

// TestStaleFillIsDropped: a look-up that read "active" before a revocation
// must not put that answer in the cache after the invalidation ran.
func TestStaleFillIsDropped(t *testing.T) {
	ctx := context.Background()
	f, h := newFake(goodKey)
	f.block = make(chan struct{})
	a := New(f, Options{})
	done := make(chan error)
	go func() {
		_, err := a.Authenticate(ctx, "Bearer "+goodKey)
		done <- err
	}()
	for f.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// The look-up has read "active"; now the key is revoked elsewhere.
	f.set(h, KeyState{Principal: Principal{KeyID: "key_1", AccountID: "acct_1"}, Revoked: true})
	a.Invalidate(h)
	close(f.block)
	<-done // the in-flight request itself may pass: it started before the revoke
	if _, err := a.Authenticate(ctx, "Bearer "+goodKey); !errors.Is(err, ErrRevoked) {
		t.Errorf("request after revoke: %v, want ErrRevoked", err)
	}
}

func TestNegativeCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	f, _ := newFake(goodKey)
	a := New(f, Options{NegativeCacheSize: 10})
	for range 25 {
		a.Authenticate(ctx, "Bearer "+apikey.Generate())
	}
	if n := a.negs.Load(); n > 10 {
		t.Errorf("%d negative entries, bound is 10", n)
	}
	n := 0
	a.cache.Range(func(_, _ any) bool { n++; return true })
	if n > 10 {
		t.Errorf("%d cache entries, want at most 10", n)
	}
}

type fakeToucher struct {
	mu   sync.Mutex
	got  map[string]time.Time
	runs int
}

func (f *fakeToucher) TouchKeys(_ context.Context, used map[string]time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	for k, v := range used {
		f.got[k] = v
	}
	return nil
}

func TestLastUsedIsThrottled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f, _ := newFake(goodKey)
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	a := New(f, Options{LastUsedInterval: time.Minute, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	for range 50 {
		a.Authenticate(ctx, "Bearer "+goodKey)
	}
	if n := len(a.touches); n != 1 {
		t.Errorf("%d last-used updates queued for 50 requests in one minute, want 1", n)
	}
	now.Add(int64(61 * time.Second))
	a.Authenticate(ctx, "Bearer "+goodKey)
	if n := len(a.touches); n != 2 {
		t.Errorf("%d updates queued after a minute, want 2", n)
	}
	tw := &fakeToucher{got: map[string]time.Time{}}
	done := make(chan struct{})
	go func() { a.RunTouches(ctx, tw); close(done) }()
	cancel()
	<-done
	if got, want := tw.got["key_1"], time.Unix(0, now.Load()); !got.Equal(want) {
		t.Errorf("last used written %v, want %v", got, want)
	}
}
