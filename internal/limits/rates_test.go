package limits_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

func TestRates(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := limits.Subject{AccountID: "acct_a", KeyID: "key_a", KeyRPM: 3, AccountRPM: 5, KeyTPM: 1000, AccountTPM: 0}
	r := limits.NewRates(limits.NewMemory(clock))

	for i := range 3 {
		out, err := r.Reserve(ctx, s, 100)
		if err != nil || out.Refused != nil {
			t.Fatalf("request %d: %+v, %v", i, out.Refused, err)
		}
		// The key's limit binds (fewer remaining than the account's).
		if out.Requests.Limit != 3 || out.Requests.Remaining != int64(2-i) || out.Tokens.Limit != 1000 {
			t.Errorf("request %d: requests %+v tokens %+v", i, out.Requests, out.Tokens)
		}
	}
	out, err := r.Reserve(ctx, s, 100)
	if err != nil || out.Refused == nil || out.Refused.Kind != "requests" || out.Refused.Scope != "key" || out.Refused.RetryAfter != 20*time.Second {
		t.Fatalf("4th request: %+v, %v", out.Refused, err)
	}
	// A second key of the account has 2 requests left: the account's 5.
	s2 := s
	s2.KeyID = "key_b"
	for i := range 3 {
		out, _ := r.Reserve(ctx, s2, 1)
		if refused := out.Refused != nil; refused != (i == 2) {
			t.Errorf("key_b request %d refused=%v", i, refused)
		} else if refused && out.Refused.Scope != "account" {
			t.Errorf("key_b refused by %s", out.Refused.Scope)
		}
	}
	// The refusal by the account gave back key_b's request: after a
	// minute both are full again, and key_b's bucket was not overdrawn.
	now = now.Add(time.Minute)
	if out, _ := r.Reserve(ctx, s2, 1); out.Refused != nil || out.Requests.Remaining != 2 {
		t.Errorf("after a minute: %+v %+v", out.Refused, out.Requests)
	}
}

func TestRatesTokens(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := limits.NewRates(limits.NewMemory(func() time.Time { return now }))
	s := limits.Subject{AccountID: "acct_t", KeyID: "key_t", KeyTPM: 1000}
	// A request larger than the limit can never pass.
	out, _ := r.Reserve(ctx, s, 1001)
	if out.Refused == nil || !out.Refused.TooLarge || out.Refused.Kind != "tokens" {
		t.Fatalf("too large: %+v", out.Refused)
	}
	// Large reservations corrected to small usage leave room.
	for i := range 8 {
		out, err := r.Reserve(ctx, s, 600)
		if err != nil || out.Refused != nil {
			t.Fatalf("request %d refused: %+v %v", i, out.Refused, err)
		}
		if err := r.Settle(ctx, s, 600, 50); err != nil {
			t.Fatal(err)
		}
	}
	out, _ = r.Reserve(ctx, s, 600)
	if out.Refused != nil {
		t.Fatalf("after 8×50 tokens used, 600 more refused: %+v", out.Refused)
	}
	out, _ = r.Reserve(ctx, s, 600)
	if out.Refused == nil || out.Refused.Limit-out.Refused.Remaining < 500 {
		t.Fatalf("without settling, the next 600 must be refused: %+v", out.Refused)
	}
	// No limits: nothing to report.
	if out, err := r.Reserve(ctx, limits.Subject{AccountID: "a", KeyID: "k"}, 10); err != nil || out.HasRequests || out.HasTokens {
		t.Errorf("unlimited: %+v %v", out, err)
	}
}

// TestRatesCurrent reads use without taking any: it counts what Reserve
// and Settle charged, and what has come back after 30 s.
func TestRatesCurrent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := limits.NewRates(limits.NewMemory(func() time.Time { return now }))
	s := limits.Subject{AccountID: "acct_c", KeyID: "key_c", KeyRPM: 60, AccountRPM: 600, KeyTPM: 6000}
	for range 10 {
		if out, err := r.Reserve(ctx, s, 400); err != nil || out.Refused != nil {
			t.Fatalf("reserve: %+v, %v", out.Refused, err)
		}
	}
	if err := r.Settle(ctx, s, 400, 100); err != nil { // one request used 100 of its 400
		t.Fatal(err)
	}
	want := limits.Use{KeyRequests: 10, AccountRequests: 10, KeyTokens: 3700}
	for range 2 { // reading twice takes nothing
		if got, err := r.Current(ctx, s); err != nil || got != want {
			t.Errorf("Current = %+v, %v; want %+v", got, err, want)
		}
	}
	now = now.Add(30 * time.Second) // half a minute returns half a limit
	want = limits.Use{KeyRequests: 0, AccountRequests: 0, KeyTokens: 700}
	if got, err := r.Current(ctx, s); err != nil || got != want {
		t.Errorf("after 30 s: Current = %+v, %v; want %+v", got, err, want)
	}
	if got, err := r.Current(ctx, limits.Subject{AccountID: "acct_none", KeyID: "key_none"}); err != nil || got != (limits.Use{}) {
		t.Errorf("no limits: Current = %+v, %v", got, err)
	}
}

// TestRatesRefund gives back all a request took: its request and tokens.
func TestRatesRefund(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := limits.NewRates(limits.NewMemory(func() time.Time { return now }))
	s := limits.Subject{AccountID: "acct_r", KeyID: "key_r", KeyRPM: 60, AccountRPM: 600, KeyTPM: 6000, AccountTPM: 60000}
	for range 3 {
		if out, err := r.Reserve(ctx, s, 400); err != nil || out.Refused != nil {
			t.Fatalf("reserve: %+v, %v", out.Refused, err)
		}
	}
	if err := r.Refund(ctx, s, 400); err != nil {
		t.Fatal(err)
	}
	want := limits.Use{KeyRequests: 2, AccountRequests: 2, KeyTokens: 800, AccountTokens: 800}
	if got, err := r.Current(ctx, s); err != nil || got != want {
		t.Errorf("Current = %+v, %v; want %+v", got, err, want)
	}
}

// keyLog is a Limiter that always allows and notes the buckets named.
type keyLog struct{ keys []string }

func (l *keyLog) Take(_ context.Context, key string, r limits.Rate, _ int64) (limits.Decision, error) {
	l.keys = append(l.keys, "take "+key)
	return limits.Decision{Allowed: true, Limit: r.Limit, Remaining: r.Limit}, nil
}

func (l *keyLog) Adjust(_ context.Context, key string, _ limits.Rate, _ int64) error {
	l.keys = append(l.keys, "adjust "+key)
	return nil
}

// TestRatesBuckets pins the bucket names, which Redis keeps across
// restarts and versions: kind, scope, ID and limit.
func TestRatesBuckets(t *testing.T) {
	ctx := context.Background()
	all := limits.Subject{AccountID: "acct_1", KeyID: "key_1", KeyRPM: 60, AccountRPM: 600, KeyTPM: 6000, AccountTPM: 1_000_000_000}
	some := limits.Subject{AccountID: "acct_1", KeyID: "key_" + strings.Repeat("x", 200), AccountRPM: 600, KeyTPM: 6000}
	for _, tc := range []struct {
		name string
		call func(r *limits.Rates) error
		want []string
	}{
		{"reserve", func(r *limits.Rates) error { _, err := r.Reserve(ctx, all, 10); return err }, []string{
			"take r:k:key_1:60", "take r:a:acct_1:600", "take t:k:key_1:6000", "take t:a:acct_1:1000000000"}},
		{"reserve some, a long ID", func(r *limits.Rates) error { _, err := r.Reserve(ctx, some, 10); return err }, []string{
			"take r:a:acct_1:600", "take t:k:" + some.KeyID + ":6000"}},
		{"settle", func(r *limits.Rates) error { return r.Settle(ctx, all, 10, 4) }, []string{
			"adjust t:k:key_1:6000", "adjust t:a:acct_1:1000000000"}},
		{"settle some", func(r *limits.Rates) error { return r.Settle(ctx, some, 10, 4) }, []string{
			"adjust t:k:" + some.KeyID + ":6000"}},
		{"refund", func(r *limits.Rates) error { return r.Refund(ctx, all, 10) }, []string{
			"adjust r:k:key_1:60", "adjust r:a:acct_1:600", "adjust t:k:key_1:6000", "adjust t:a:acct_1:1000000000"}},
		{"current", func(r *limits.Rates) error { _, err := r.Current(ctx, some); return err }, []string{
			"take r:a:acct_1:600", "take t:k:" + some.KeyID + ":6000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l keyLog
			if err := tc.call(limits.NewRates(&l)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, l.keys); diff != "" {
				t.Errorf("buckets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRatesAllocs counts the allocations of a limited request's Reserve
// and Settle in memory: one for the bucket names of each (issue 18).
func TestRatesAllocs(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := limits.NewRates(limits.NewMemory(func() time.Time { return now }))
	s := limits.Subject{AccountID: "acct_1", KeyID: "key_1", KeyRPM: 1e9, AccountRPM: 1e9, KeyTPM: 1e9, AccountTPM: 1e9}
	got := testing.AllocsPerRun(100, func() {
		if out, err := r.Reserve(ctx, s, 500); err != nil || out.Refused != nil {
			t.Fatalf("reserve: %+v, %v", out.Refused, err)
		}
		if err := r.Settle(ctx, s, 500, 20); err != nil {
			t.Fatal(err)
		}
	})
	if got > 2 {
		t.Errorf("Reserve and Settle: %v allocations, want at most 2", got)
	}
}
