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
	primary, secondary *fake
	clock              *clock
	log                *logRecorder
}

func newFallbackRig(failClosed bool) *fallbackRig {
	r := &fallbackRig{primary: &fake{id: 1}, secondary: &fake{id: 2}, clock: &clock{}, log: &logRecorder{}}
	r.f = limits.NewFallback(r.primary, r.secondary, failClosed, slog.New(r.log))
	limits.SetFallbackNow(r.f, r.clock.now)
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

// do makes one call, an Adjust or a Take, and reports what happened.
func (r *fallbackRig) do(ctx context.Context, adjust bool) outcome {
	p, s := r.primary.calls.Load(), r.secondary.calls.Load()
	var err error
	var dec limits.Decision
	if adjust {
		err = r.f.Adjust(ctx, "k", backendRate, 1)
	} else {
		dec, err = r.f.Take(ctx, "k", backendRate, 1)
	}
	o := outcome{
		Tried:       r.primary.calls.Load() > p,
		Unavailable: errors.Is(err, limits.ErrUnavailable),
		Cause:       errors.Is(err, errDown),
		Failures:    r.f.Failures(),
		Down:        r.f.Down(),
	}
	switch {
	case err != nil:
	case !adjust:
		o.Served = map[int64]string{1: "primary", 2: "secondary"}[dec.Limit]
	case r.secondary.calls.Load() > s:
		o.Served = "secondary"
	default:
		o.Served = "primary"
	}
	return o
}

func TestFallback(t *testing.T) {
	type step struct {
		name    string
		wait    time.Duration
		primary error // what the primary returns from this step on
		adjust  bool
		want    outcome
	}
	for _, tc := range []struct {
		name       string
		failClosed bool
		steps      []step
		logs       []string
	}{
		{"fail open", false, []step{
			{"up", 0, nil, false, outcome{Tried: true, Served: "primary"}},
			{"primary fails", 0, errDown, false, outcome{Tried: true, Served: "secondary", Failures: 1, Down: true}},
			{"adjust while down", 0, errDown, true, outcome{Served: "secondary", Failures: 1, Down: true}},
			{"not retried within a second", 999 * time.Millisecond, errDown, false, outcome{Served: "secondary", Failures: 1, Down: true}},
			{"retried after a second", time.Millisecond, errDown, false, outcome{Tried: true, Served: "secondary", Failures: 2, Down: true}},
			{"once a second", 0, errDown, true, outcome{Served: "secondary", Failures: 2, Down: true}},
			{"adjust retries", time.Second, errDown, true, outcome{Tried: true, Served: "secondary", Failures: 3, Down: true}},
			{"recovers", time.Second, nil, false, outcome{Tried: true, Served: "primary", Failures: 3}},
			{"stays up", 0, nil, true, outcome{Tried: true, Served: "primary", Failures: 3}},
			{"second outage", 0, errDown, true, outcome{Tried: true, Served: "secondary", Failures: 4, Down: true}},
		}, []string{
			"WARN rate limiter primary failed, serving from secondary",
			"INFO rate limiter primary recovered",
			"WARN rate limiter primary failed, serving from secondary",
		}},
		{"fail closed", true, []step{
			{"up", 0, nil, false, outcome{Tried: true, Served: "primary"}},
			{"primary fails", 0, errDown, false, outcome{Tried: true, Unavailable: true, Cause: true, Failures: 1, Down: true}},
			{"refused while down", 0, errDown, false, outcome{Unavailable: true, Failures: 1, Down: true}},
			{"adjust refused while down", 999 * time.Millisecond, errDown, true, outcome{Unavailable: true, Failures: 1, Down: true}},
			{"retried after a second", time.Millisecond, errDown, true, outcome{Tried: true, Unavailable: true, Cause: true, Failures: 2, Down: true}},
			{"once a second", 0, errDown, false, outcome{Unavailable: true, Failures: 2, Down: true}},
			{"recovers", time.Second, nil, false, outcome{Tried: true, Served: "primary", Failures: 2}},
		}, []string{
			"WARN rate limiter primary failed, refusing requests",
			"INFO rate limiter primary recovered",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFallbackRig(tc.failClosed)
			for _, s := range tc.steps {
				r.clock.advance(s.wait)
				r.primary.fail(s.primary)
				if diff := cmp.Diff(s.want, r.do(context.Background(), s.adjust)); diff != "" {
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
			if r.f.Down() || r.f.Failures() != 0 || r.secondary.calls.Load() != 0 || len(r.log.messages()) != 0 {
				t.Errorf("Down %v, Failures %d, secondary calls %d, logs %q; want none",
					r.f.Down(), r.f.Failures(), r.secondary.calls.Load(), r.log.messages())
			}
		})
	}
}

// TestFallbackRetryOnce has 64 callers arrive together when a retry is
// due: only one of them tries the primary.
func TestFallbackRetryOnce(t *testing.T) {
	r := newFallbackRig(false)
	r.primary.fail(errDown)
	r.do(context.Background(), false)
	r.clock.advance(time.Second)
	before := r.primary.calls.Load()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			<-start
			if _, err := r.f.Take(context.Background(), "k", backendRate, 1); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := r.primary.calls.Load() - before; n != 1 {
		t.Errorf("primary tried %d times, want 1", n)
	}
	if n := r.f.Failures(); n != 2 {
		t.Errorf("Failures = %d, want 2", n)
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
			f := limits.NewFallback(limits.NewRedis(deadRedis(t), "sytest:"), mem, failClosed, slog.New(log))
			d, err := f.Take(ctx, "k", backendRate, 1)
			if failClosed {
				var opErr *net.OpError
				if !errors.Is(err, limits.ErrUnavailable) || !errors.As(err, &opErr) {
					t.Errorf("Take = %v, want ErrUnavailable wrapping a *net.OpError", err)
				}
			} else if diff := cmp.Diff(allow(10, 9, time.Hour), d); err != nil || diff != "" {
				t.Errorf("Take: err %v (-want +got):\n%s", err, diff)
			}
			if !f.Down() || f.Failures() != 1 || len(log.messages()) != 1 {
				t.Errorf("Down %v, Failures %d, logs %q; want down after one failure, logged once", f.Down(), f.Failures(), log.messages())
			}
		})
	}
}
