package limits

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchyard-gw/switchyard/internal/backoff"
)

// Breaker tracks whether a shared backend (Redis) answers, so that while
// it does not, callers skip it at once instead of each waiting for a
// timeout. The first failure opens it; while it is open, Run probes the
// backend in the background after jittered waits (10 ms doubling to 1 s),
// and the first probe that succeeds closes it. Each switch is logged at
// WARN and counted in Stats.
type Breaker struct {
	probe   func(context.Context) error
	timeout time.Duration
	log     *slog.Logger

	open     atomic.Bool
	openedAt atomic.Int64 // unix ns of the last opening
	failures atomic.Int64
	outages  atomic.Int64
	wake     chan struct{} // one slot: the breaker opened
}

// BreakerOptions configures a Breaker.
type BreakerOptions struct {
	// Probe asks the backend whether it answers (Redis: PING). Required.
	Probe func(context.Context) error
	// ProbeTimeout bounds each probe. Default 1 s.
	ProbeTimeout time.Duration
	// Log receives the switches; it should say what the caller does
	// meanwhile (e.g. with fail_closed). Default slog.Default().
	Log *slog.Logger
}

// Waits between probes while the backend is down.
const (
	probeMin = 10 * time.Millisecond
	probeMax = time.Second
)

// NewBreaker returns a closed Breaker (the backend is assumed up).
func NewBreaker(opt BreakerOptions) *Breaker {
	if opt.ProbeTimeout <= 0 {
		opt.ProbeTimeout = time.Second
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	return &Breaker{probe: opt.Probe, timeout: opt.ProbeTimeout, log: opt.Log, wake: make(chan struct{}, 1)}
}

// Up reports whether calls should go to the backend.
func (b *Breaker) Up() bool { return !b.open.Load() }

// Fail records a failed call to the backend; the first one while the
// breaker is closed opens it. Callers do not report their own mistakes or
// cancellations.
func (b *Breaker) Fail(err error) {
	b.failures.Add(1)
	if !b.open.CompareAndSwap(false, true) {
		return
	}
	b.openedAt.Store(time.Now().UnixNano())
	b.outages.Add(1)
	b.log.Warn("redis unreachable: limits served without it until it answers again", "err", err)
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Probe asks the backend once and closes the breaker if it answers. It
// reports whether the backend answered.
func (b *Breaker) Probe(ctx context.Context) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("redis probe panicked", "panic", p)
			ok = false
		}
	}()
	pctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if err := b.probe(pctx); err != nil {
		return false
	}
	if b.open.CompareAndSwap(true, false) {
		down := time.Since(time.Unix(0, b.openedAt.Load()))
		b.log.Warn("redis answers again: limits shared through it", "down_for", down.Round(time.Millisecond))
	}
	return true
}

// Run probes the backend while the breaker is open, until ctx ends.
func (b *Breaker) Run(ctx context.Context) {
	wait := backoff.Backoff{Min: probeMin, Max: probeMax}
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		wait.Reset()
		for !b.Up() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait.Next()):
			}
			b.Probe(ctx)
		}
	}
}

// BreakerStats are a Breaker's counters, for logs and metrics.
type BreakerStats struct {
	Up       bool
	Failures int64 // failed calls reported
	Outages  int64 // times the breaker opened
}

// Stats returns the breaker's counters.
func (b *Breaker) Stats() BreakerStats {
	return BreakerStats{Up: b.Up(), Failures: b.failures.Load(), Outages: b.outages.Load()}
}

// ErrBackendDown is returned by a call that skipped the backend because
// its breaker is open.
var ErrBackendDown = errors.New("limits: redis unreachable, skipped until it answers again")
