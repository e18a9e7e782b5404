package health_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// dep returns a deployment with key, weight and priority.
func dep(key string, weight, priority int) route.Deployment {
	return route.Deployment{Key: key, Deployment: catalog.Deployment{Weight: weight, Priority: priority}}
}

func keys(ds []route.Deployment) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Key
	}
	return out
}

var strategies = []catalog.Strategy{"", catalog.StrategyWeighted, catalog.StrategyLeastBusy, catalog.StrategyLatency}

// TestOrderTiers: whatever the strategy, lower priorities come first and
// every healthy deployment comes once; ds is left as it was.
func TestOrderTiers(t *testing.T) {
	tr, _ := newTracker(health.Config{})
	ds := []route.Deployment{dep("c/1", 1, 1), dep("a/0", 1, 0), dep("d/2", 100, 2), dep("b/0", 5, 0), dep("e/-1", 1, -1)}
	orig := slices.Clone(ds)
	for _, st := range strategies {
		for range 50 {
			got, until, rl := tr.Order(ds, st)
			k := keys(got)
			if k[0] != "e/-1" || !slices.Equal(k[3:], []string{"c/1", "d/2"}) || !(k[1] == "a/0" && k[2] == "b/0" || k[1] == "b/0" && k[2] == "a/0") {
				t.Fatalf("%q: order %v, want e/-1, {a/0 b/0}, c/1, d/2", st, k)
			}
			if !until.IsZero() || rl {
				t.Fatalf("%q: cooling %v %v with none cooling", st, until, rl)
			}
		}
	}
	if diff := cmp.Diff(keys(orig), keys(ds)); diff != "" {
		t.Errorf("Order modified ds (-before +after):\n%s", diff)
	}
}

// TestRank: the order of tiers and strategy, cooling deployments kept in
// their place.
func TestRank(t *testing.T) {
	tr, _ := newTracker(health.Config{AllowedFails: 1})
	tr.Failure("a/0", "unavailable", 0)             // cools
	tr.Failure("e/-1", health.ClassRateLimit, 20*s) // cools
	ds := []route.Deployment{dep("c/1", 1, 1), dep("a/0", 1, 0), dep("d/2", 100, 2), dep("b/0", 5, 0), dep("e/-1", 1, -1)}
	if order, _, _ := tr.Order(ds, catalog.StrategyWeighted); len(order) != 3 {
		t.Fatalf("Order kept %v, want the three not cooling", keys(order))
	}
	for _, st := range strategies {
		for range 50 {
			k := keys(tr.Rank(ds, st))
			if len(k) != 5 || k[0] != "e/-1" || !slices.Equal(k[3:], []string{"c/1", "d/2"}) || !(k[1] == "a/0" && k[2] == "b/0" || k[1] == "b/0" && k[2] == "a/0") {
				t.Fatalf("%q: rank %v, want e/-1, {a/0 b/0}, c/1, d/2", st, k)
			}
		}
	}
}

func TestOrderEmpty(t *testing.T) {
	tr, _ := newTracker(health.Config{})
	for _, ds := range [][]route.Deployment{nil, {}} {
		got, until, rl := tr.Order(ds, catalog.StrategyWeighted)
		if len(got) != 0 || !until.IsZero() || rl {
			t.Errorf("Order(%v) = %v, %v, %v; want nothing", ds, got, until, rl)
		}
	}
}

// TestOrderCooling: cooling deployments are left out; the earliest end
// among them is reported, with its cause.
func TestOrderCooling(t *testing.T) {
	cases := []struct {
		name     string
		failures func(tr *health.Tracker)
		want     []string
		until    time.Duration
		rl       bool
	}{
		{"none", func(*health.Tracker) {}, []string{"a/m", "b/m", "c/m"}, 0, false},
		{"rate limit ends first", func(tr *health.Tracker) {
			tr.Failure("a/m", health.ClassRateLimit, 20*s)
			tr.Failure("b/m", "unavailable", 0)
			tr.Failure("b/m", "unavailable", 0)
		}, []string{"c/m"}, 20 * s, true},
		{"failures end first", func(tr *health.Tracker) {
			tr.Failure("a/m", health.ClassRateLimit, 40*s)
			tr.Failure("b/m", "unavailable", 0)
			tr.Failure("b/m", "unavailable", 0)
		}, []string{"c/m"}, 30 * s, false},
		{"all cooling", func(tr *health.Tracker) {
			tr.Failure("a/m", "overloaded", 50*s)
			tr.Failure("b/m", "overloaded", 40*s)
			tr.Failure("b/m", "overloaded", 55*s)
			tr.Failure("c/m", health.ClassRateLimit, 45*s)
		}, []string{}, 45 * s, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, c := newTracker(health.Config{AllowedFails: 2})
			tc.failures(tr)
			got, until, rl := tr.Order(deps("a/m", "b/m", "c/m"), catalog.StrategyLeastBusy)
			k := keys(got)
			slices.Sort(k)
			var wait time.Duration
			if !until.IsZero() {
				wait = until.Sub(c.now())
			}
			if !slices.Equal(k, tc.want) || wait != tc.until || rl != tc.rl {
				t.Errorf("Order = %v, cooling %v (rate limit %v); want %v, %v (%v)", k, wait, rl, tc.want, tc.until, tc.rl)
			}
		})
	}
}

// firstShares returns how often each key came first in n orders.
func firstShares(tr *health.Tracker, ds []route.Deployment, st catalog.Strategy, n int) map[string]int {
	got := map[string]int{}
	for range n {
		order, _, _ := tr.Order(ds, st)
		got[order[0].Key]++
		if len(order) != len(ds) {
			panic("a deployment went missing")
		}
	}
	return got
}

// within reports whether count is within 6 standard deviations of n×p:
// a correct draw misses once in about 10^9 runs.
func within(count, n int, p float64) bool {
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return math.Abs(float64(count)-float64(n)*p) <= 6*sd
}

func TestOrderWeighted(t *testing.T) {
	const n = 20_000
	cases := []struct {
		name string
		ds   []route.Deployment
		want map[string]float64 // chance of coming first
	}{
		{"3 to 1", []route.Deployment{dep("a", 3, 0), dep("b", 1, 0)}, map[string]float64{"a": 0.75, "b": 0.25}},
		{"weight 0 counts as 1", []route.Deployment{dep("a", 0, 0), dep("b", 1, 0), dep("c", 2, 0)},
			map[string]float64{"a": 0.25, "b": 0.25, "c": 0.5}},
		{"negative counts as 1", []route.Deployment{dep("a", -5, 0), dep("b", 1, 0)}, map[string]float64{"a": 0.5, "b": 0.5}},
		{"weights apply within a tier", []route.Deployment{dep("a", 1, 0), dep("b", 1000, 1), dep("c", 3, 0)},
			map[string]float64{"a": 0.25, "c": 0.75}},
	}
	tr, _ := newTracker(health.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := firstShares(tr, tc.ds, catalog.StrategyWeighted, n)
			for k, p := range tc.want {
				if !within(got[k], n, p) {
					t.Errorf("%s first %d of %d, want about %.0f", k, got[k], n, p*n)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("firsts %v, want only %v", got, tc.want)
			}
		})
	}
}

// TestOrderWeightedSecond: without replacement, the second place is drawn
// among the rest by their weights: with 2, 1, 1, b follows a half the
// time and follows c a third of the time, so b is second with
// 1/2·1/2 + 1/4·1/3·... computed below.
func TestOrderWeightedSecond(t *testing.T) {
	const n = 20_000
	tr, _ := newTracker(health.Config{})
	ds := []route.Deployment{dep("a", 2, 0), dep("b", 1, 0), dep("c", 1, 0)}
	second := 0
	for range n {
		order, _, _ := tr.Order(ds, catalog.StrategyWeighted)
		if order[1].Key == "a" {
			second++
		}
	}
	// a is second when b or c came first (1/4 each) and a then wins 2 of 3.
	if p := 2 * 0.25 * 2.0 / 3; !within(second, n, p) {
		t.Errorf("a second %d of %d, want about %.0f", second, n, p*n)
	}
}

func TestOrderLeastBusy(t *testing.T) {
	tr, _ := newTracker(health.Config{})
	ds := deps("a", "b", "c")
	doneA1, doneA2 := tr.Begin("a"), tr.Begin("a")
	doneB := tr.Begin("b")
	if got, _, _ := tr.Order(ds, catalog.StrategyLeastBusy); !slices.Equal(keys(got), []string{"c", "b", "a"}) {
		t.Errorf("order %v, want c b a", keys(got))
	}
	doneA1()
	doneA2()
	// a and c have none in flight: both come first, at random.
	got := firstShares(tr, ds, catalog.StrategyLeastBusy, 2000)
	if got["b"] != 0 || !within(got["a"], 2000, 0.5) {
		t.Errorf("firsts %v, want a and c about 1000 each", got)
	}
	doneB()
	if st := tr.Snapshot([]string{"a", "b"}); st[0].InFlight != 0 || st[1].InFlight != 0 {
		t.Errorf("in flight after done: %+v", st)
	}
}

func TestLatency(t *testing.T) {
	const ms = time.Millisecond
	tr, c := newTracker(health.Config{LatencyHalfLife: 30 * s})
	ewma := func(key string) time.Duration { return tr.Snapshot([]string{key})[0].LatencyEWMA }
	steps := []struct {
		wait time.Duration
		ttfb time.Duration
		want time.Duration
	}{
		{0, 100 * ms, 100 * ms},      // the first sample is the average
		{30 * s, 300 * ms, 200 * ms}, // one half-life: half each
		{60 * s, 400 * ms, 350 * ms}, // two: the old keeps a quarter
		{0, 900 * ms, 350 * ms},      // no time passed: no weight
		{0, -1, 350 * ms},            // no sample
		{time.Second, 0, 350 * ms},   // no sample
		{299 * s, 0, 350 * ms},       // ten half-lives since the last sample: still known
		{1, 0, 0},                    // older: unknown again
		{0, 50 * ms, 50 * ms},        // a first sample again
	}
	for i, st := range steps {
		c.advance(st.wait)
		tr.Success("a", st.ttfb)
		if got := ewma("a"); got != st.want {
			t.Fatalf("step %d: EWMA %v, want %v", i, got, st.want)
		}
	}
}

func TestOrderLatency(t *testing.T) {
	const ms = time.Millisecond
	tr, c := newTracker(health.Config{LatencyHalfLife: 10 * s})
	ds := deps("slow", "fast", "new")
	tr.Success("slow", 300*ms)
	tr.Success("fast", 100*ms)
	if got, _, _ := tr.Order(ds, catalog.StrategyLatency); !slices.Equal(keys(got), []string{"new", "fast", "slow"}) {
		t.Errorf("order %v, want new (unmeasured) fast slow", keys(got))
	}
	tr.Success("new", 200*ms)
	if got, _, _ := tr.Order(ds, catalog.StrategyLatency); !slices.Equal(keys(got), []string{"fast", "new", "slow"}) {
		t.Errorf("order %v, want fast new slow", keys(got))
	}
	// Slow goes unmeasured for over ten half-lives: it is probed again.
	c.advance(90 * s)
	tr.Success("fast", 100*ms)
	tr.Success("new", 200*ms)
	c.advance(11 * s)
	if got, _, _ := tr.Order(ds, catalog.StrategyLatency); !slices.Equal(keys(got), []string{"slow", "fast", "new"}) {
		t.Errorf("order %v, want slow (stale) fast new", keys(got))
	}
}
