package limits_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

// clock is a fake time source; it moves only when told.
type clock struct{ ns atomic.Int64 }

var epoch = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func (c *clock) now() time.Time          { return epoch.Add(time.Duration(c.ns.Load())) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// newMemory returns a Memory on a fake clock.
func newMemory() (*limits.Memory, *clock) {
	c := &clock{}
	return limits.NewMemory(c.now), c
}

// step is one call in a scenario: after the clock moves by wait, Adjust
// by n units (adjust) or Take n units and get want.
type step struct {
	wait   time.Duration
	adjust bool
	n      int64
	want   limits.Decision
}

func take(n int64, want limits.Decision) step { return step{n: n, want: want} }
func adjust(n int64) step                     { return step{adjust: true, n: n} }
func after(wait time.Duration, s step) step   { s.wait = wait; return s }

func allow(limit, rem int64, reset time.Duration) limits.Decision {
	return limits.Decision{Allowed: true, Limit: limit, Remaining: rem, ResetAfter: reset}
}

func refuse(limit, rem int64, reset, retry time.Duration) limits.Decision {
	return limits.Decision{Limit: limit, Remaining: rem, ResetAfter: reset, RetryAfter: retry}
}

// runSteps plays steps on key. The clock may be nil when no step waits.
// A backend whose clock runs on its own (Redis) passes the time a
// scenario may take as slack: a duration up to slack below the one
// wanted counts as equal, since time only lowers what a bucket owes.
func runSteps(t *testing.T, lim limits.Limiter, c *clock, key string, r limits.Rate, steps []step, slack time.Duration) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		if s.wait != 0 {
			c.advance(s.wait)
		}
		if s.adjust {
			if err := lim.Adjust(ctx, key, r, s.n); err != nil {
				t.Fatalf("step %d: Adjust(%d) = %v", i, s.n, err)
			}
			continue
		}
		got, err := lim.Take(ctx, key, r, s.n)
		if err != nil {
			t.Fatalf("step %d: Take(%d) = %v", i, s.n, err)
		}
		got.ResetAfter = snap(got.ResetAfter, s.want.ResetAfter, slack)
		got.RetryAfter = snap(got.RetryAfter, s.want.RetryAfter, slack)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d: Take(%d) (-want +got):\n%s", i, s.n, diff)
		}
	}
}

// snap returns want if got lies in (want − slack, want], else got.
func snap(got, want, slack time.Duration) time.Duration {
	if got <= want && got > want-slack {
		return want
	}
	return got
}

// backendCases run on Memory and on Redis. They need no clock: T is an
// hour, so a backend's own clock moves nothing by a whole unit while they
// run.
var (
	backendRate  = limits.Rate{Limit: 10, Period: 10 * time.Hour}
	backendCases = []struct {
		name  string
		steps []step
	}{
		{"fresh bucket", []step{
			take(0, allow(10, 10, 0)),
			take(1, allow(10, 9, time.Hour)),
			take(0, allow(10, 9, time.Hour)),
			take(3, allow(10, 6, 4*time.Hour)),
			take(7, refuse(10, 6, 4*time.Hour, time.Hour)),
			take(6, allow(10, 0, 10*time.Hour)),
			take(1, refuse(10, 0, 10*time.Hour, time.Hour)),
			take(0, allow(10, 0, 10*time.Hour)),
		}},
		{"cost above the limit is refused and never charged", []step{
			take(11, refuse(10, 10, 0, 0)),
			take(4, allow(10, 6, 4*time.Hour)),
			take(math.MaxInt64, refuse(10, 6, 4*time.Hour, 0)),
			take(6, allow(10, 0, 10*time.Hour)),
		}},
		{"charge beyond full", []step{
			take(10, allow(10, 0, 10*time.Hour)),
			adjust(5),
			take(0, refuse(10, 0, 15*time.Hour, 5*time.Hour)),
			take(1, refuse(10, 0, 15*time.Hour, 6*time.Hour)),
		}},
		{"charge capped at MaxPeriod", []step{
			adjust(1_000_000),
			take(0, refuse(10, 0, limits.MaxPeriod, limits.MaxPeriod-10*time.Hour)),
		}},
		{"charge MaxInt64", []step{
			adjust(math.MaxInt64),
			take(1, refuse(10, 0, limits.MaxPeriod, limits.MaxPeriod-9*time.Hour)),
		}},
		{"give back", []step{
			take(8, allow(10, 2, 8*time.Hour)),
			adjust(-3),
			take(0, allow(10, 5, 5*time.Hour)),
		}},
		{"give back never beyond full", []step{
			take(2, allow(10, 8, 2*time.Hour)),
			adjust(-5),
			take(0, allow(10, 10, 0)),
			take(10, allow(10, 0, 10*time.Hour)),
			take(1, refuse(10, 0, 10*time.Hour, time.Hour)),
		}},
		{"give back MinInt64 to a fresh bucket", []step{
			adjust(math.MinInt64),
			take(10, allow(10, 0, 10*time.Hour)),
			take(1, refuse(10, 0, 10*time.Hour, time.Hour)),
		}},
		{"give back after charging beyond full", []step{
			take(10, allow(10, 0, 10*time.Hour)),
			adjust(20),
			adjust(-25),
			take(0, allow(10, 5, 5*time.Hour)),
		}},
		{"zero delta", []step{
			take(3, allow(10, 7, 3*time.Hour)),
			adjust(0),
			take(0, allow(10, 7, 3*time.Hour)),
		}},
		{"reservation settled to usage", []step{
			take(6, allow(10, 4, 6*time.Hour)), // estimate
			adjust(2 - 6),                      // used 2
			take(0, allow(10, 8, 2*time.Hour)),
			take(9, refuse(10, 8, 2*time.Hour, time.Hour)),
		}},
	}
)

func TestMemoryBackendCases(t *testing.T) {
	for _, tc := range backendCases {
		t.Run(tc.name, func(t *testing.T) {
			m, c := newMemory()
			runSteps(t, m, c, "k", backendRate, tc.steps, 0)
		})
	}
}

// TestGCRA checks Decisions against numbers worked out by hand from the
// formulas in the package doc.
func TestGCRA(t *testing.T) {
	const third = 3333333333 * time.Nanosecond // 10s / 3, rounded down
	for _, tc := range []struct {
		name  string
		rate  limits.Rate
		steps []step
	}{
		{"3 per 10s: T rounded down, tau 1ns short of 10s", limits.Rate{Limit: 3, Period: 10 * time.Second}, []step{
			take(1, allow(3, 2, third)),
			take(1, allow(3, 1, 2*third)),
			take(1, allow(3, 0, 3*third)),
			take(1, refuse(3, 0, 3*third, third)),
			after(third-1, take(0, allow(3, 0, 2*third+1))),
			take(1, refuse(3, 0, 2*third+1, 1)),
			after(1, take(1, allow(3, 0, 3*third))),
			after(10*time.Second, take(0, allow(3, 3, 0))),
		}},
		{"60 per minute: partial refill", limits.Rate{Limit: 60, Period: time.Minute}, []step{
			take(45, allow(60, 15, 45*time.Second)),
			take(20, refuse(60, 15, 45*time.Second, 5*time.Second)),
			after(4500*time.Millisecond, take(20, refuse(60, 19, 40500*time.Millisecond, 500*time.Millisecond))),
			after(500*time.Millisecond, take(20, allow(60, 0, time.Minute))),
			after(90*time.Second, take(0, allow(60, 60, 0))),
			take(60, allow(60, 0, time.Minute)),
		}},
		{"cost above the limit is refused and never charged", limits.Rate{Limit: 5, Period: time.Second}, []step{
			take(6, refuse(5, 5, 0, 0)),
			take(2, allow(5, 3, 400*time.Millisecond)),
			take(6, refuse(5, 3, 400*time.Millisecond, 0)),
			take(math.MaxInt64, refuse(5, 3, 400*time.Millisecond, 0)),
			take(3, allow(5, 0, time.Second)),
			take(6, refuse(5, 0, time.Second, 0)),
		}},
		{"cost 0 reports without taking", limits.Rate{Limit: 5, Period: time.Second}, []step{
			take(0, allow(5, 5, 0)),
			take(0, allow(5, 5, 0)),
			take(2, allow(5, 3, 400*time.Millisecond)),
			take(0, allow(5, 3, 400*time.Millisecond)),
			after(100*time.Millisecond, take(0, allow(5, 3, 300*time.Millisecond))),
			adjust(5),
			take(0, refuse(5, 0, 1300*time.Millisecond, 300*time.Millisecond)),
		}},
		{"T of 1ns", limits.Rate{Limit: 1000, Period: time.Microsecond}, []step{
			take(1000, allow(1000, 0, time.Microsecond)),
			take(1, refuse(1000, 0, time.Microsecond, 1)),
			after(1, take(1, allow(1000, 0, time.Microsecond))),
			after(500, take(0, allow(1000, 500, 500))),
		}},
		{"longest period", limits.Rate{Limit: 1, Period: limits.MaxPeriod}, []step{
			take(1, allow(1, 0, limits.MaxPeriod)),
			after(limits.MaxPeriod-1, take(1, refuse(1, 0, 1, 1))),
			after(1, take(1, allow(1, 0, limits.MaxPeriod))),
			adjust(math.MaxInt64),
			take(0, allow(1, 0, limits.MaxPeriod)),
			adjust(math.MinInt64),
			take(0, allow(1, 1, 0)),
		}},
		{"most units", limits.Rate{Limit: int64(limits.MaxPeriod), Period: limits.MaxPeriod}, []step{
			take(int64(limits.MaxPeriod)-1, allow(int64(limits.MaxPeriod), 1, limits.MaxPeriod-1)),
			take(2, refuse(int64(limits.MaxPeriod), 1, limits.MaxPeriod-1, 1)),
			after(1, take(2, allow(int64(limits.MaxPeriod), 0, limits.MaxPeriod))),
		}},
		{
			// A wall clock without a monotonic reading may step back
			// before the limiter was made; a bucket never used is full
			// all the same.
			"clock steps back", limits.Rate{Limit: 10, Period: 10 * time.Second}, []step{
				after(-time.Hour, take(1, allow(10, 9, time.Second))),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := newMemory()
			runSteps(t, m, c, "k", tc.rate, tc.steps, 0)
		})
	}
}

// TestFreshBucket checks that a new bucket admits exactly Limit units one
// by one, counting Remaining down, then refuses for one T.
func TestFreshBucket(t *testing.T) {
	for _, r := range []limits.Rate{
		{Limit: 1, Period: time.Second},
		{Limit: 3, Period: 10 * time.Second},
		{Limit: 60, Period: time.Minute},
		{Limit: 1000, Period: time.Minute},
		{Limit: 7, Period: limits.MaxPeriod},
		{Limit: 1000, Period: time.Microsecond},
	} {
		t.Run(fmt.Sprintf("%d per %v", r.Limit, r.Period), func(t *testing.T) {
			m, _ := newMemory()
			ctx := context.Background()
			tick := r.Period / time.Duration(r.Limit)
			for i := range r.Limit {
				d, err := m.Take(ctx, "k", r, 1)
				want := allow(r.Limit, r.Limit-1-i, time.Duration(i+1)*tick)
				if diff := cmp.Diff(want, d); err != nil || diff != "" {
					t.Fatalf("Take %d: err %v (-want +got):\n%s", i, err, diff)
				}
			}
			d, err := m.Take(ctx, "k", r, 1)
			want := refuse(r.Limit, 0, time.Duration(r.Limit)*tick, tick)
			if diff := cmp.Diff(want, d); err != nil || diff != "" {
				t.Fatalf("Take %d: err %v (-want +got):\n%s", r.Limit, err, diff)
			}
			// All at once fits a fresh bucket too.
			if d, _ := m.Take(ctx, "other", r, r.Limit); !d.Allowed || d.Remaining != 0 {
				t.Errorf("Take(Limit) of a fresh bucket = %+v", d)
			}
		})
	}
}

// TestRefill checks that a drained bucket regains exactly one unit per T.
func TestRefill(t *testing.T) {
	r := limits.Rate{Limit: 10, Period: time.Second}
	const tick = 100 * time.Millisecond
	for _, tc := range []struct {
		wait time.Duration
		want int64
	}{
		{1, 0},
		{tick - 1, 0},
		{tick, 1},
		{tick + 1, 1},
		{3*tick - 1, 2},
		{3 * tick, 3},
		{10*tick - 1, 9},
		{10 * tick, 10},
		{time.Hour, 10},
	} {
		t.Run(tc.wait.String(), func(t *testing.T) {
			m, c := newMemory()
			ctx := context.Background()
			if d, _ := m.Take(ctx, "k", r, 10); !d.Allowed {
				t.Fatal("could not drain a fresh bucket")
			}
			c.advance(tc.wait)
			if d, _ := m.Take(ctx, "k", r, 0); d.Remaining != tc.want {
				t.Errorf("Remaining = %d, want %d", d.Remaining, tc.want)
			}
			got := int64(0)
			for ; got <= 10; got++ {
				if d, _ := m.Take(ctx, "k", r, 1); !d.Allowed {
					break
				}
			}
			if got != tc.want {
				t.Errorf("admitted %d after %v, want %d", got, tc.wait, tc.want)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	ok := limits.Rate{Limit: 10, Period: time.Second}
	for _, tc := range []struct {
		name string
		rate limits.Rate
		cost int64
	}{
		{"zero limit", limits.Rate{Limit: 0, Period: time.Second}, 1},
		{"negative limit", limits.Rate{Limit: -1, Period: time.Second}, 1},
		{"zero period", limits.Rate{Limit: 1}, 1},
		{"negative period", limits.Rate{Limit: 1, Period: -time.Second}, 1},
		{"period above MaxPeriod", limits.Rate{Limit: 1, Period: limits.MaxPeriod + 1}, 1},
		{"limit above period in ns", limits.Rate{Limit: 1001, Period: time.Microsecond}, 1},
		{"negative cost", ok, -1},
		{"MinInt64 cost", ok, math.MinInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newMemory()
			ctx := context.Background()
			if _, err := m.Take(ctx, "k", tc.rate, tc.cost); !errors.Is(err, limits.ErrInvalid) {
				t.Errorf("Take = %v, want ErrInvalid", err)
			}
			if tc.rate != ok {
				if err := m.Adjust(ctx, "k", tc.rate, 1); !errors.Is(err, limits.ErrInvalid) {
					t.Errorf("Adjust = %v, want ErrInvalid", err)
				}
			}
			if d, _ := m.Take(ctx, "k", ok, 10); !d.Allowed || m.Len() != 1 {
				t.Errorf("bucket touched by an invalid call: %+v, Len %d", d, m.Len())
			}
		})
	}
}
