package health_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// fakeShared records what a Tracker asks of its Shared backend and lets
// the test play the other replicas.
type fakeShared struct {
	calls    []string
	failures func(key string, n int)
	cooled   func(health.Cooldown)
}

func (f *fakeShared) Failed(key string, window time.Duration) {
	f.calls = append(f.calls, fmt.Sprintf("failed %s %v", key, window))
}

func (f *fakeShared) Cool(c health.Cooldown) {
	f.calls = append(f.calls, fmt.Sprintf("cool %s %s %v", c.Key, c.Reason, c.For))
}

func (f *fakeShared) Attach(failures func(string, int), cooled func(health.Cooldown)) {
	f.failures, f.cooled = failures, cooled
}

// take returns the calls recorded since the last take.
func (f *fakeShared) take() []string {
	c := f.calls
	f.calls = nil
	return c
}

// TestShared: the happy path asks nothing of the backend; a failure is
// counted there; a cooldown decided here, by local or shared count or by
// Retry-After, is sent once; one decided elsewhere is applied.
func TestShared(t *testing.T) {
	tr, c := newTracker(health.Config{AllowedFails: 3})
	f := &fakeShared{}
	tr.Share(f)
	ds := deps("a/m", "b/m", "c/m")

	for range 100 {
		done := tr.Begin("a/m")
		tr.Attempt("m")
		tr.Order(ds, catalog.StrategyLeastBusy)
		tr.Success("a/m", time.Millisecond)
		tr.TryRetry("m")
		done()
	}
	tr.Snapshot(nil)
	if got := f.take(); len(got) != 0 {
		t.Fatalf("happy path called the backend: %v", got)
	}

	steps := []struct {
		do   func()
		want []string
		out  []string // keys Order leaves out afterwards
	}{
		{func() { tr.Failure("a/m", "timeout", 0) }, []string{"failed a/m 30s"}, nil},
		{func() { f.failures("a/m", 2) }, nil, nil},
		{func() { f.failures("a/m", 3) }, []string{"cool a/m failures 30s"}, []string{"a/m"}},
		{func() { f.failures("a/m", 4) }, nil, []string{"a/m"}}, // in force already
		{func() { tr.Failure("b/m", health.ClassRateLimit, 20*s) },
			[]string{"cool b/m rate_limit 20s", "failed b/m 30s"}, []string{"a/m", "b/m"}},
		{func() { f.cooled(health.Cooldown{Key: "c/m", Reason: "overloaded", For: 5 * s}) }, nil, []string{"a/m", "b/m", "c/m"}},
		{func() { c.advance(5 * s) }, nil, []string{"a/m", "b/m"}},
		{func() { f.cooled(health.Cooldown{Key: "c/m", Reason: "overloaded", For: -s}) }, nil, []string{"a/m", "b/m"}},
		{func() {
			c.advance(25 * s)
			tr.Failure("c/m", "reset", 0)
			tr.Failure("c/m", "reset", 0)
			tr.Failure("c/m", "reset", 0)
		},
			[]string{"failed c/m 30s", "failed c/m 30s", "cool c/m failures 30s", "failed c/m 30s"}, []string{"c/m"}},
	}
	for i, st := range steps {
		st.do()
		if diff := cmp.Diff(st.want, f.take()); diff != "" {
			t.Fatalf("step %d: calls (-want +got):\n%s", i, diff)
		}
		order, _, _ := tr.Order(ds, catalog.StrategyWeighted)
		var out []string
		for _, d := range ds {
			if !slices.ContainsFunc(order, func(o route.Deployment) bool { return o.Key == d.Key }) {
				out = append(out, d.Key)
			}
		}
		if diff := cmp.Diff(st.out, out); diff != "" {
			t.Fatalf("step %d: left out (-want +got):\n%s", i, diff)
		}
	}

	tr.Share(nil)
	tr.Failure("a/m", "timeout", 0)
	if got := f.take(); len(got) != 0 {
		t.Errorf("after Share(nil) the backend got %v", got)
	}
}
