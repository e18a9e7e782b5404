package health_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
)

func TestSnapshot(t *testing.T) {
	tr, c := newTracker(health.Config{Cooldown: 30 * s, AllowedFails: 5})
	tr.Failure("a/m", "timeout", 0)
	c.advance(10 * s)
	tr.Failure("a/m", "unavailable", 0)
	tr.Failure("a/m", "reset", 0)
	tr.Failure("a/m", "unavailable", 0)
	tr.Failure("a/m", health.ClassRateLimit, 15*s)
	tr.Begin("a/m")
	tr.Success("b/m", 250*time.Millisecond)
	c.advance(25 * s) // the timeout is 35s old
	tr.Begin("b/m")
	tr.Begin("b/m")

	want := []health.State{
		{Key: "a/m", FailuresInWindow: 4, InFlight: 1, RecentErrors: []health.ClassCount{
			{"unavailable", 2}, {"rate_limit", 1}, {"reset", 1}}},
		{Key: "b/m", InFlight: 2, LatencyEWMA: 250 * time.Millisecond},
	}
	if diff := cmp.Diff(want, tr.Snapshot(nil)); diff != "" {
		t.Errorf("Snapshot(nil) (-want +got):\n%s", diff)
	}

	// Asked for, in that order, including a key never seen; cooling.
	tr.Failure("b/m", "overloaded", time.Minute)
	want = []health.State{
		{Key: "new/m"},
		{Key: "b/m", CoolingUntil: c.now().Add(time.Minute), Reason: "overloaded", FailuresInWindow: 1, InFlight: 2,
			LatencyEWMA: 250 * time.Millisecond, RecentErrors: []health.ClassCount{{"overloaded", 1}}},
	}
	if diff := cmp.Diff(want, tr.Snapshot([]string{"new/m", "b/m"})); diff != "" {
		t.Errorf("Snapshot(keys) (-want +got):\n%s", diff)
	}
	if got := tr.Snapshot([]string{}); len(got) != 0 {
		t.Errorf("Snapshot([]) = %v, want none", got)
	}
}

// TestConcurrent runs every method at once; run it with -race.
func TestConcurrent(t *testing.T) {
	tr, c := newTracker(health.Config{AllowedFails: 2, Cooldown: s})
	ds := deps("a/m", "b/m", "c/m")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := ds[i%3].Key
				done := tr.Begin(k)
				tr.Order(ds, []catalog.Strategy{catalog.StrategyWeighted, catalog.StrategyLeastBusy, catalog.StrategyLatency}[i%3])
				switch (i + g) % 4 {
				case 0:
					tr.Failure(k, "unavailable", 0)
				case 1:
					tr.Failure(k, health.ClassRateLimit, time.Millisecond)
				default:
					tr.Success(k, time.Duration(i)*time.Microsecond)
				}
				done()
				tr.Attempt("m")
				tr.TryRetry("m")
				if i%100 == 0 {
					tr.Snapshot(nil)
					tr.SetConfig(health.Config{AllowedFails: 2 + i%3, Cooldown: s})
					c.advance(time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	for _, st := range tr.Snapshot(nil) {
		if st.InFlight != 0 {
			t.Errorf("%s: %d in flight after every call ended", st.Key, st.InFlight)
		}
	}
}
