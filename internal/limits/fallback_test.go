package limits_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

var errDown = errors.New("redis down")

// fake is a Limiter that allows everything, answering with its id as the
// Decision's Limit, or fails as told. Like go-redis, it fails with the
// context's error once the context is done.
type fake struct {
	id    int64
	calls atomic.Int64

	mu  sync.Mutex
	err error // mu guards
}

func (f *fake) fail(err error) { f.mu.Lock(); f.err = err; f.mu.Unlock() }

func (f *fake) call(ctx context.Context) error {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	return ctx.Err()
}

func (f *fake) Take(ctx context.Context, _ string, _ limits.Rate, _ int64) (limits.Decision, error) {
	if err := f.call(ctx); err != nil {
		return limits.Decision{}, err
	}
	return limits.Decision{Allowed: true, Limit: f.id}, nil
}

func (f *fake) Adjust(ctx context.Context, _ string, _ limits.Rate, _ int64) error {
	return f.call(ctx)
}

// logRecorder keeps the level and message of each record.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Level.String()+" "+r.Message)
	return nil
}

func (l *logRecorder) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

type fallbackRig struct {
	f                  *limits.Fallback
	b                  *limits.Breaker
	primary, secondary *fake
	log                *logRecorder
}

// newFallbackRig returns a Fallback whose breaker probes the primary
// only when a test calls Probe.
func newFallbackRig(failClosed bool) *fallbackRig {
	r := &fallbackRig{primary: &fake{id: 1}, secondary: &fake{id: 2}, log: &logRecorder{}}
	r.b = limits.NewBreaker(limits.BreakerOptions{Probe: r.primary.call, Log: slog.New(r.log)})
	r.f = limits.NewFallback(r.primary, r.secondary, limits.FallbackOptions{Breaker: r.b, FailClosed: failClosed})
	return r
}

// outcome is what one call through a Fallback did.
type outcome struct {
	Tried       bool   // the primary was called
	Served      string // "primary", "secondary" or "" (an error)
	Unavailable bool   // the error is ErrUnavailable
	Cause       bool   // the error wraps the primary's errDown
	Failures    int64
	Down        bool
}

// do makes one call, a probe, an Adjust or a Take, and reports what
// happened.
func (r *fallbackRig) do(ctx context.Context, call string) outcome {
	p, s := r.primary.calls.Load(), r.secondary.calls.Load()
	var err error
	var dec limits.Decision
	switch call {
	case "probe":
		r.b.Probe(ctx)
	case "adjust":
		err = r.f.Adjust(ctx, "k", backendRate, 1)
	default:
		dec, err = r.f.Take(ctx, "k", backendRate, 1)
	}
	st := r.b.Stats()
	o := outcome{
		Tried:       r.primary.calls.Load() > p,
		Unavailable: errors.Is(err, limits.ErrUnavailable),
		Cause:       errors.Is(err, errDown),
		Failures:    st.Failures,
		Down:        !st.Up,
	}
	switch {
	case err != nil, call == "probe":
	case call == "take":
		o.Served = map[int64]string{1: "primary", 2: "secondary"}[dec.Limit]
	case r.secondary.calls.Load() > s:
		o.Served = "secondary"
	default:
		o.Served = "primary"
	}
	return o
}

const (
	warnDown = "WARN redis unreachable: limits served without it until it answers again"
	warnUp   = "WARN redis answers again: limits shared through it"
)

// TestFallback: a failure of the primary switches to the secondary (or
// refuses, fail-closed) and later calls skip the primary without trying
// it (issue 13: each waited for its timeout); only the breaker's probe
// tries it, and the first that succeeds switches back. Each switch is
// logged at WARN.
func TestFallback(t *testing.T) {
	type step struct {
		name    string
		call    string // "take", "adjust" or "probe"
		primary error  // what the primary returns from this step on
		want    outcome
	}
	for _, tc := range []struct {
		name       string
		failClosed bool
		steps      []step
		logs       []string
	}{
		{"fail open", false, []step{
			{"up", "take", nil, outcome{Tried: true, Served: "primary"}},
			{"primary fails", "take", errDown, outcome{Tried: true, Served: "secondary", Failures: 1, Down: true}},
			{"take skips the primary", "take", errDown, outcome{Served: "secondary", Failures: 1, Down: true}},
			{"adjust skips the primary", "adjust", errDown, outcome{Served: "secondary", Failures: 1, Down: true}},
			{"probe fails", "probe", errDown, outcome{Tried: true, Failures: 1, Down: true}},
			{"still down", "take", nil, outcome{Served: "secondary", Failures: 1, Down: true}},
			{"probe recovers", "probe", nil, outcome{Tried: true, Failures: 1}},
			{"back on the primary", "adjust", nil, outcome{Tried: true, Served: "primary", Failures: 1}},
			{"second outage", "adjust", errDown, outcome{Tried: true, Served: "secondary", Failures: 2, Down: true}},
		}, []string{warnDown, warnUp, warnDown}},
		{"fail closed", true, []step{
			{"up", "take", nil, outcome{Tried: true, Served: "primary"}},
			{"primary fails", "take", errDown, outcome{Tried: true, Unavailable: true, Cause: true, Failures: 1, Down: true}},
			{"refused while down", "take", errDown, outcome{Unavailable: true, Failures: 1, Down: true}},
			{"adjust refused while down", "adjust", errDown, outcome{Unavailable: true, Failures: 1, Down: true}},
			{"probe recovers", "probe", nil, outcome{Tried: true, Failures: 1}},
			{"back on the primary", "take", nil, outcome{Tried: true, Served: "primary", Failures: 1}},
		}, []string{warnDown, warnUp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFallbackRig(tc.failClosed)
			for _, s := range tc.steps {
				r.primary.fail(s.primary)
				if diff := cmp.Diff(s.want, r.do(context.Background(), s.call)); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", s.name, diff)
				}
			}
			if diff := cmp.Diff(tc.logs, r.log.messages()); diff != "" {
				t.Errorf("logs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFallbackCallerErrors checks that neither invalid input nor a caller
// that has gone away marks the primary down.
func TestFallbackCallerErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, failClosed := range []bool{false, true} {
		t.Run(fmt.Sprintf("failClosed=%v", failClosed), func(t *testing.T) {
			r := newFallbackRig(failClosed)
			r.primary.fail(fmt.Errorf("%w: cost -1", limits.ErrInvalid))
			if _, err := r.f.Take(context.Background(), "k", backendRate, -1); !errors.Is(err, limits.ErrInvalid) {
				t.Errorf("Take with ErrInvalid from the primary = %v", err)
			}
			// A primary that fails with the context's error, or with its
			// own once the context is done, says nothing of its health.
			for _, perr := range []error{nil, errDown} {
				r.primary.fail(perr)
				if err := r.f.Adjust(cancelled, "k", backendRate, 1); err == nil || errors.Is(err, limits.ErrUnavailable) {
					t.Errorf("Adjust with a cancelled context, primary failing with %v: %v", perr, err)
				}
				if _, err := r.f.Take(cancelled, "k", backendRate, 1); err == nil || errors.Is(err, limits.ErrUnavailable) {
					t.Errorf("Take with a cancelled context, primary failing with %v: %v", perr, err)
				}
			}
			if st := r.b.Stats(); !st.Up || st.Failures != 0 || r.secondary.calls.Load() != 0 || len(r.log.messages()) != 0 {
				t.Errorf("breaker %+v, secondary calls %d, logs %q; want none", st, r.secondary.calls.Load(), r.log.messages())
			}
		})
	}
}

// TestBreakerRun: while the breaker is open, 64 concurrent calls never
// wait on the primary; Run's probe alone tries it, and the Fallback is
// back on the primary soon after it answers.
func TestBreakerRun(t *testing.T) {
	r := newFallbackRig(false)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.b.Run(ctx) })
	defer wg.Wait()
	defer cancel()
	r.primary.fail(errDown)
	r.do(context.Background(), "take")
	// The probe may be running: count the calls of Takes only.
	var calls sync.WaitGroup
	before := r.secondary.calls.Load()
	for range 64 {
		calls.Go(func() {
			if _, err := r.f.Take(context.Background(), "k", backendRate, 1); err != nil {
				t.Error(err)
			}
		})
	}
	calls.Wait()
	if n := r.secondary.calls.Load() - before; n != 64 {
		t.Errorf("%d of 64 calls served by the secondary while the primary is down", n)
	}
	r.primary.fail(nil)
	for deadline := time.Now().Add(5 * time.Second); !r.b.Up(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the breaker did not close within 5 s of the primary answering")
		}
	}
	if o := r.do(context.Background(), "take"); o.Served != "primary" {
		t.Errorf("after recovery: %+v", o)
	}
	if st := r.b.Stats(); st.Outages != 1 || st.Failures != 1 {
		t.Errorf("stats %+v, want one outage, one failure", st)
	}
}

// TestFallbackShare: while the primary is down, a process enforces
// ceil(limit / replicas) of each limit (at least 1), and a cost that fits
// the limit but not the share passes on a full share and empties it.
func TestFallbackShare(t *testing.T) {
	rate := limits.Rate{Limit: 10, Period: time.Minute}
	for _, tc := range []struct {
		name     string
		replicas int64
		rate     limits.Rate
		costs    []int64
		want     []limits.Decision
	}{
		{"one replica keeps the limit", 1, rate, []int64{10, 1}, []limits.Decision{
			allow(10, 0, time.Minute), refuse(10, 0, time.Minute, 6*time.Second)}},
		{"three replicas: ceil(10/3) = 4", 3, rate, []int64{1, 1, 1, 1, 1}, []limits.Decision{
			allow(4, 3, 15*time.Second), allow(4, 2, 30*time.Second), allow(4, 1, 45*time.Second),
			allow(4, 0, time.Minute), refuse(4, 0, time.Minute, 15*time.Second)}},
		{"at least 1", 20, rate, []int64{1, 1}, []limits.Decision{
			allow(1, 0, time.Minute), refuse(1, 0, time.Minute, time.Minute)}},
		{"a cost above the share empties it", 3, rate, []int64{8, 1}, []limits.Decision{
			allow(4, 0, time.Minute), refuse(4, 0, time.Minute, 15*time.Second)}},
		{"a cost above the limit is too large", 3, rate, []int64{11}, []limits.Decision{
			{Limit: 4, Remaining: 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, _ := newMemory()
			b := limits.NewBreaker(limits.BreakerOptions{Probe: func(context.Context) error { return errDown }, Log: slog.New(slog.DiscardHandler)})
			b.Fail(errDown)
			f := limits.NewFallback(&fake{}, mem, limits.FallbackOptions{Breaker: b, Replicas: tc.replicas})
			var got []limits.Decision
			for _, c := range tc.costs {
				d, err := f.Take(context.Background(), "k", tc.rate, c)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, d)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFallbackDeadRedis fails over from a real Redis client whose server
// is not there.
func TestFallbackDeadRedis(t *testing.T) {
	ctx := context.Background()
	for _, failClosed := range []bool{false, true} {
		t.Run(fmt.Sprintf("failClosed=%v", failClosed), func(t *testing.T) {
			log := &logRecorder{}
			mem, _ := newMemory()
			c := deadRedis(t)
			b := limits.NewBreaker(limits.BreakerOptions{Probe: func(ctx context.Context) error { return c.Ping(ctx).Err() }, Log: slog.New(log)})
			f := limits.NewFallback(limits.NewRedis(c, "sytest:"), mem, limits.FallbackOptions{Breaker: b, FailClosed: failClosed})
			d, err := f.Take(ctx, "k", backendRate, 1)
			if failClosed {
				var opErr *net.OpError
				if !errors.Is(err, limits.ErrUnavailable) || !errors.As(err, &opErr) {
					t.Errorf("Take = %v, want ErrUnavailable wrapping a *net.OpError", err)
				}
			} else if diff := cmp.Diff(allow(10, 9, time.Hour), d); err != nil || diff != "" {
				t.Errorf("Take: err %v (-want +got):\n%s", err, diff)
			}
			if st := b.Stats(); st.Up || st.Failures != 1 || len(log.messages()) != 1 {
				t.Errorf("breaker %+v, logs %q; want down after one failure, logged once", st, log.messages())
			}
		})
	}
}
