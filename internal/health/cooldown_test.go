package health_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// clock is a fake time source; it moves only when told.
type clock struct{ ns atomic.Int64 }

var epoch = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func (c *clock) now() time.Time          { return epoch.Add(time.Duration(c.ns.Load())) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// newTracker returns a Tracker with cfg on a fake clock.
func newTracker(cfg health.Config) (*health.Tracker, *clock) {
	c := &clock{}
	return health.New(cfg, c.now), c
}

// deps returns deployments named by their keys, in tier 0, weight 1.
func deps(keys ...string) []route.Deployment {
	ds := make([]route.Deployment, len(keys))
	for i, k := range keys {
		ds[i] = route.Deployment{Key: k}
	}
	return ds
}

// cooling returns how long key still cools down according to Order (0
// when it is offered) and whether by rate limiting; Cooling must agree.
func cooling(t *testing.T, tr *health.Tracker, c *clock, key string) (time.Duration, bool) {
	t.Helper()
	order, until, rl := tr.Order(deps(key), catalog.StrategyWeighted)
	if got := tr.Cooling(key); got != (len(order) == 0) {
		t.Errorf("Cooling(%s) = %v, but Order offers %v", key, got, order)
	}
	switch {
	case len(order) == 1 && until.IsZero() && !rl:
		return 0, false
	case len(order) == 0 && !until.IsZero():
		return until.Sub(c.now()), rl
	}
	t.Fatalf("Order = %v, %v, %v: neither offered nor cooling", order, until, rl)
	return 0, false
}

// hstep is one step of a cooldown scenario: after the clock moves by
// wait, a Failure of class (with retryAfter) or, for class "", a
// Success; then Order must report the deployment cooling for want (0:
// offered), by rate limiting or not.
type hstep struct {
	wait       time.Duration
	class      string
	retryAfter time.Duration
	want       time.Duration
	rl         bool
}

func fail(class string, want time.Duration) hstep { return hstep{class: class, want: want} }
func fail429(ra, want time.Duration) hstep {
	return hstep{class: health.ClassRateLimit, retryAfter: ra, want: want, rl: want > 0}
}
func success(want time.Duration) hstep       { return hstep{want: want} }
func at(wait time.Duration, s hstep) hstep   { s.wait = wait; return s }
func byRL(s hstep, rl bool) hstep            { s.rl = rl; return s }
func withRA(s hstep, ra time.Duration) hstep { s.retryAfter = ra; return s }

const s = time.Second

func TestCooldown(t *testing.T) {
	base := health.Config{Cooldown: 30 * s, AllowedFails: 3}
	cases := []struct {
		name  string
		cfg   health.Config
		steps []hstep
	}{
		{"three failures cool for Cooldown", base, []hstep{
			fail("unavailable", 0),
			at(s, fail("timeout", 0)),
			at(s, fail("reset", 30*s)),
			at(29*s, success(s)),
			at(s, success(0)),
		}},
		{"defaults are 3 failures and 30s", health.Config{}, []hstep{
			fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 30*s),
		}},
		{"a failure counts while younger than Cooldown", base, []hstep{
			fail("unavailable", 0),
			at(15*s, fail("unavailable", 0)),
			at(15*s, fail("unavailable", 0)), // the first is 30s old: two count
			at(s, fail("unavailable", 30*s)), // 15s, 30s, 31s
		}},
		{"failures spread over the window add up", base, []hstep{
			fail("unavailable", 0),
			at(10*s, fail("unavailable", 0)),
			at(19*s, fail("unavailable", 30*s)),
		}},
		{"failures while cooling do not lengthen it", base, []hstep{
			fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 30*s),
			at(10*s, fail("unavailable", 20*s)),
			at(19*s, fail("unavailable", s)),
		}},
		{"a cooldown's failures have left the window when it ends", base, []hstep{
			fail("unavailable", 0), at(s, fail("unavailable", 0)), at(s, fail("unavailable", 30*s)),
			at(30*s, fail("unavailable", 0)), // the three are 30s+ old
			fail("unavailable", 0),
			fail("unavailable", 30*s),
		}},
		{"success does not end a cooldown", base, []hstep{
			fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 30*s),
			at(s, success(29*s)), success(29 * s),
		}},
		{"a 429's Retry-After cools at once", base, []hstep{
			fail429(20*s, 20*s),
			at(19*s, byRL(success(s), true)),
			at(s, success(0)),
		}},
		{"Retry-After is capped at 10 × Cooldown", base, []hstep{
			fail429(time.Hour, 300*s),
		}},
		{"Retry-After is capped at an hour", health.Config{Cooldown: 10 * time.Minute}, []hstep{
			fail429(3*time.Hour, time.Hour),
		}},
		{"a shorter Retry-After keeps the longer cooldown", base, []hstep{
			fail429(20*s, 20*s),
			byRL(fail429(5*s, 20*s), true),
			at(s, fail429(40*s, 40*s)),
		}},
		{"a Retry-After lengthens a cooldown of failures", base, []hstep{
			fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 30*s),
			at(s, fail429(60*s, 60*s)),
		}},
		{"failures after a short Retry-After cool for Cooldown", base, []hstep{
			fail429(5*s, 5*s),
			at(5*s, fail("unavailable", 0)),
			fail("unavailable", 30*s),
		}},
		{"Retry-After on another class is not rate limiting", base, []hstep{
			byRL(withRA(fail("overloaded", 10*s), 10*s), false),
		}},
		{"a 429 without Retry-After only counts", base, []hstep{
			fail429(0, 0), fail429(0, 0), byRL(fail429(0, 30*s), false),
		}},
		{"AllowedFails 1 cools on the first failure", health.Config{AllowedFails: 1, Cooldown: 5 * s}, []hstep{
			fail("timeout", 5*s),
		}},
		{"AllowedFails below 0 never cools by count", health.Config{AllowedFails: -1}, []hstep{
			fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 0), fail("unavailable", 0),
			fail429(3*s, 3*s),
		}},
		{"Retry-After of 0 or less only counts", health.Config{AllowedFails: 2}, []hstep{
			withRA(fail("rate_limit", 0), -s),
			fail("unavailable", 30*s),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, c := newTracker(tc.cfg)
			for i, st := range tc.steps {
				c.advance(st.wait)
				if st.class != "" {
					tr.Failure("p/m", st.class, st.retryAfter)
				} else {
					tr.Success("p/m", 0)
				}
				got, rl := cooling(t, tr, c, "p/m")
				if got != st.want || rl != st.rl {
					t.Fatalf("step %d: cooling %v (rate limit %v), want %v (%v)", i, got, rl, st.want, st.rl)
				}
			}
		})
	}
}

// TestCooldownPerKey: one deployment's failures cool only it.
func TestCooldownPerKey(t *testing.T) {
	tr, c := newTracker(health.Config{AllowedFails: 2})
	tr.Failure("a/m", "unavailable", 0)
	tr.Failure("b/m", "unavailable", 0)
	tr.Failure("a/m", "unavailable", 0)
	if got, _ := cooling(t, tr, c, "a/m"); got != 30*s {
		t.Errorf("a/m cools %v, want 30s", got)
	}
	if got, _ := cooling(t, tr, c, "b/m"); got != 0 {
		t.Errorf("b/m cools %v, want 0", got)
	}
}

// TestSetConfigKeepsState: a reload keeps the failures and cooldowns, and
// the new limits apply to the next failure.
func TestSetConfigKeepsState(t *testing.T) {
	tr, c := newTracker(health.Config{AllowedFails: 5})
	tr.Failure("a/m", "unavailable", 0)
	tr.Failure("a/m", "unavailable", 0)
	tr.Failure("b/m", health.ClassRateLimit, 20*s)
	tr.SetConfig(health.Config{AllowedFails: 3, Cooldown: 10 * s})
	if got, _ := cooling(t, tr, c, "b/m"); got != 20*s {
		t.Errorf("after reload b/m cools %v, want 20s", got)
	}
	if got, _ := cooling(t, tr, c, "a/m"); got != 0 {
		t.Fatalf("after reload a/m cools %v, want 0", got)
	}
	tr.Failure("a/m", "unavailable", 0)
	if got, _ := cooling(t, tr, c, "a/m"); got != 10*s {
		t.Errorf("third failure after reload: a/m cools %v, want 10s", got)
	}
}

// TestFailureMemoryBounded: a deployment failing without end keeps a
// bounded list, and the count still reaches AllowedFails.
func TestFailureMemoryBounded(t *testing.T) {
	tr, _ := newTracker(health.Config{AllowedFails: -1})
	for i := range 10_000 {
		tr.Failure("a/m", fmt.Sprint("class", i%3), 0)
	}
	st := tr.Snapshot([]string{"a/m"})[0]
	if st.FailuresInWindow != 64 {
		t.Errorf("FailuresInWindow = %d, want the bound 64", st.FailuresInWindow)
	}
}
