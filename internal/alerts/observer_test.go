package alerts_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newObserver(st alerts.Store, clk *clock) *alerts.Observer {
	return alerts.NewObserver(st, alerts.ObserverOptions{Now: clk.Now, Log: quiet})
}

// threeRules gives acct_1 rules at $10, $50 and $100.
func threeRules(st *fakeStore) {
	for i, n := range []int64{50, 10, 100} {
		st.addRule(alerts.Rule{ID: "rule_" + string(rune('a'+i)), AccountID: "acct_1", Threshold: dollars(n)})
	}
}

func TestObserverFiresEachRuleOnce(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	threeRules(st)
	clk := newClock()
	o := newObserver(st, clk)

	for i := range 50 {
		o.Observe("acct_1", "2026-11", dollars(60)+usdCents(int64(i)))
		o.Pass(ctx)
	}
	if diff := cmp.Diff([]string{"2026-11 10.00", "2026-11 50.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := st.fireCount(); got != 2 {
		t.Errorf("FireAlert called %d times, want 2 (fired rules are cached)", got)
	}
	for _, ev := range st.eventList() {
		if !strings.HasPrefix(ev.ID, "alev_") || ev.AccountID != "acct_1" || !ev.CreatedAt.Equal(clk.Now()) || ev.Spend != dollars(60) {
			t.Errorf("event %+v", ev)
		}
	}

	o.Observe("acct_1", "2026-11", dollars(100))
	o.Pass(ctx)
	want := []string{"2026-11 10.00", "2026-11 100.00", "2026-11 50.00"}
	if diff := cmp.Diff(want, st.firedThresholds()); diff != "" {
		t.Errorf("after $100 (-want +got):\n%s", diff)
	}
}

func TestObserverNewPeriodFiresAgain(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	threeRules(st)
	o := newObserver(st, newClock())

	o.Observe("acct_1", "2026-11", dollars(20))
	o.Pass(ctx)
	o.Observe("acct_1", "2026-12", dollars(20))
	o.Observe("acct_2", "2026-12", dollars(20)) // no rules
	o.Pass(ctx)
	o.Observe("acct_1", "2026-12", dollars(30))
	o.Pass(ctx)
	if diff := cmp.Diff([]string{"2026-11 10.00", "2026-12 10.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestObserverRestart: a fresh Observer (a restart, another replica)
// neither misses a crossing it did not see nor repeats a stored event.
func TestObserverRestart(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	threeRules(st)
	first := newObserver(st, newClock())
	first.Observe("acct_1", "2026-11", dollars(12))
	first.Pass(ctx)

	second := newObserver(st, newClock())
	second.Observe("acct_1", "2026-11", dollars(75)) // crossed $50 unseen
	second.Pass(ctx)
	if diff := cmp.Diff([]string{"2026-11 10.00", "2026-11 50.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := st.fireCount(); got != 2 {
		t.Errorf("FireAlert called %d times, want 2 (the $10 event was known)", got)
	}
}

func TestTwoObserversOneEvent(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	st := newFakeStore()
	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50)})
	obs := []*alerts.Observer{newObserver(st, newClock()), newObserver(st, newClock())}
	var wg sync.WaitGroup
	for _, o := range obs {
		wg.Go(func() { o.Run(ctx) })
	}
	var feeders sync.WaitGroup
	for i := range 8 {
		feeders.Go(func() {
			for j := range 500 {
				obs[i%2].Observe("acct_1", "2026-11", dollars(49)+usdCents(int64(j)))
			}
		})
	}
	feeders.Wait()
	waitFor(t, "the event", func() bool { return len(st.eventList()) > 0 })
	time.Sleep(50 * time.Millisecond) // let both observers catch up
	cancel()
	wg.Wait()
	if got := len(st.eventList()); got != 1 {
		t.Errorf("%d events, want 1", got)
	}
}

func TestObserverInvalidate(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	o := newObserver(st, newClock())
	o.Observe("acct_1", "2026-11", dollars(20))
	o.Pass(ctx) // caches "no rules"

	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(15)})
	o.Observe("acct_1", "2026-11", dollars(21))
	o.Pass(ctx)
	if got := len(st.eventList()); got != 0 {
		t.Fatalf("%d events before Invalidate, want 0 (rules are cached)", got)
	}
	o.Invalidate("acct_1")
	for range 3 { // passes check only what came since the last (the map is reused)
		o.Observe("acct_2", "2026-11", dollars(20))
		o.Pass(ctx)
	}
	if got := len(st.eventList()); got != 0 {
		t.Fatalf("%d events from passes without acct_1, want 0", got)
	}
	o.Observe("acct_1", "2026-11", dollars(22))
	o.Pass(ctx)
	if diff := cmp.Diff([]string{"2026-11 15.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events after Invalidate (-want +got):\n%s", diff)
	}
}

// TestObserverRetriesAfterStoreError: a failed check keeps the observation
// for the next pass, even if the next observation is lower.
func TestObserverRetriesAfterStoreError(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50)})
	st.failRuleLoads(1)
	o := newObserver(st, newClock())
	o.Observe("acct_1", "2026-11", dollars(60))
	o.Pass(ctx)
	if got := len(st.eventList()); got != 0 {
		t.Fatalf("%d events while the store fails", got)
	}
	o.Observe("acct_1", "2026-11", dollars(1))
	o.Pass(ctx)
	evs := st.eventList()
	if len(evs) != 1 || evs[0].Spend != dollars(60) {
		t.Errorf("events %+v, want one with spend 60.00", evs)
	}
}

// TestObserveNeverBlocks calls Observe 100k times from many goroutines
// with nothing processing the observations.
func TestObserveNeverBlocks(t *testing.T) {
	st := newFakeStore()
	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(1)})
	o := newObserver(st, newClock())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for g := range 100 {
			wg.Go(func() {
				for i := range 1000 {
					o.Observe("acct_"+string(rune('0'+g%10)), "2026-11", usdCents(int64(i)))
				}
			})
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Observe blocked")
	}
	o.Pass(t.Context())
	if got := len(st.eventList()); got != 1 {
		t.Errorf("%d events, want 1", got)
	}
}

// heldTimer stands for Run's timer: each wait after a pass is reported on
// waits, and lasts until the test sends on fire.
type heldTimer struct {
	waits chan time.Duration
	fire  chan time.Time
}

func newHeldTimer() *heldTimer {
	return &heldTimer{waits: make(chan time.Duration), fire: make(chan time.Time)}
}

func (h *heldTimer) after(d time.Duration) <-chan time.Time {
	h.waits <- d
	return h.fire
}

// pass waits until Run has made a pass and waits on the timer.
func (h *heldTimer) pass(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-h.waits:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no pass")
		return 0
	}
}

// release fires the timer Run waits on.
func (h *heldTimer) release(t *testing.T) {
	t.Helper()
	select {
	case h.fire <- time.Time{}:
	case <-time.After(10 * time.Second):
		t.Fatal("Run does not wait on its timer")
	}
}

// runObserver runs o until the test ends, and returns a func that ends
// Run and waits for it to return.
func runObserver(t *testing.T, o *alerts.Observer) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); o.Run(ctx) }()
	return func() {
		t.Helper()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return")
		}
	}
}

// TestObserverSpacesPasses: Run passes at the first observation, then
// not before its timer fires, however many come meanwhile; the pass then
// checks the highest spend among them.
func TestObserverSpacesPasses(t *testing.T) {
	st := newFakeStore()
	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50)})
	o := alerts.NewObserver(st, alerts.ObserverOptions{Log: quiet, PassInterval: time.Second})
	h := newHeldTimer()
	o.SetAfter(h.after)
	stop := runObserver(t, o)

	o.Observe("acct_1", "2026-11", dollars(10))
	if d := h.pass(t); d != time.Second {
		t.Errorf("Run waits %v after a pass, want PassInterval (1s)", d)
	}
	for i := range 1000 {
		o.Observe("acct_1", "2026-11", dollars(50)+usdCents(int64(i%500)))
	}
	if got := st.fireCount(); got != 0 {
		t.Fatalf("FireAlert called %d times while Run waits", got)
	}
	h.release(t)
	h.pass(t)
	evs := st.eventList()
	if len(evs) != 1 || evs[0].Spend != dollars(50)+usdCents(499) {
		t.Errorf("events %+v, want one with spend 54.99", evs)
	}
	if got := st.fireCount(); got != 1 {
		t.Errorf("FireAlert called %d times, want 1", got)
	}
	stop() // while the timer is held
}

// TestObserverLastPass: what is pending when Run's context ends is still
// checked, without waiting for the timer.
func TestObserverLastPass(t *testing.T) {
	st := newFakeStore()
	threeRules(st)
	o := newObserver(st, newClock())
	h := newHeldTimer()
	o.SetAfter(h.after)
	stop := runObserver(t, o)

	o.Observe("acct_1", "2026-11", dollars(20))
	h.pass(t)
	o.Observe("acct_1", "2026-11", dollars(60))
	stop()
	if diff := cmp.Diff([]string{"2026-11 10.00", "2026-11 50.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestObserverPassKeepsWhatCtxCut: observations that a pass leaves
// unchecked because its context ended wait for the next pass.
func TestObserverPassKeepsWhatCtxCut(t *testing.T) {
	st := newFakeStore()
	threeRules(st)
	o := newObserver(st, newClock())
	o.Observe("acct_1", "2026-11", dollars(20))
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	o.Pass(ended)
	if got := len(st.eventList()); got != 0 {
		t.Fatalf("%d events from a pass whose context ended", got)
	}
	o.Pass(t.Context())
	if diff := cmp.Diff([]string{"2026-11 10.00"}, st.firedThresholds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestObserveAllocs: an observation and its pass cost no allocation once
// the account's rules and fired alerts are cached.
func TestObserveAllocs(t *testing.T) {
	ctx := t.Context()
	st := newFakeStore()
	threeRules(st)
	o := newObserver(st, newClock())
	spend := dollars(20)
	n := testing.AllocsPerRun(1000, func() { // after a first run that fills the caches
		spend += usd.Micro
		o.Observe("acct_1", "2026-11", spend)
		o.Pass(ctx)
	})
	if n != 0 {
		t.Errorf("%v allocs per observation and pass, want 0", n)
	}
}
