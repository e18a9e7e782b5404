package limits

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// ErrUnavailable reports, in fail-closed mode, that the primary limiter
// is down and was not retried for this call.
var ErrUnavailable = errors.New("limits: primary limiter unavailable")

// retryEvery is how often a Fallback tries its primary while it is down.
const retryEvery = time.Second

// Fallback uses a primary Limiter (Redis) and, when it fails, a secondary
// one (Memory): fail-open, so the gateway keeps serving with per-process
// limits. With failClosed it returns the error instead. While the primary
// is down, one call a second tries it again; the first that succeeds
// switches back. Each outage is logged once when it starts and once when
// it ends.
//
// Buckets are not copied between the two: after a switch, a key starts
// from what the other limiter last knew of it, and an Adjust that follows
// a Take on the other limiter corrects a bucket that never held the
// reservation (giving back never overfills it, so the error is bounded).
type Fallback struct {
	primary, secondary Limiter
	failClosed         bool
	log                *slog.Logger
	now                func() time.Time

	failures atomic.Int64
	down     atomic.Bool
	retryAt  atomic.Int64 // unix ns: when a call may next try the primary
}

var _ Limiter = (*Fallback)(nil)

// NewFallback returns a Limiter that prefers primary and falls back to
// secondary, logging outages to log.
func NewFallback(primary, secondary Limiter, failClosed bool, log *slog.Logger) *Fallback {
	return &Fallback{primary: primary, secondary: secondary, failClosed: failClosed, log: log, now: time.Now}
}

// Failures returns how many calls to the primary have failed.
func (f *Fallback) Failures() int64 { return f.failures.Load() }

// Down reports whether the primary is considered down.
func (f *Fallback) Down() bool { return f.down.Load() }

// Take implements Limiter.
func (f *Fallback) Take(ctx context.Context, key string, r Rate, cost int64) (Decision, error) {
	if f.usePrimary() {
		dec, err := f.primary.Take(ctx, key, r, cost)
		if err = f.observe(ctx, err); err == nil || !f.failedOver(err) {
			return dec, err
		}
	} else if f.failClosed {
		return Decision{}, ErrUnavailable
	}
	return f.secondary.Take(ctx, key, r, cost)
}

// Adjust implements Limiter.
func (f *Fallback) Adjust(ctx context.Context, key string, r Rate, delta int64) error {
	if f.usePrimary() {
		err := f.observe(ctx, f.primary.Adjust(ctx, key, r, delta))
		if err == nil || !f.failedOver(err) {
			return err
		}
	} else if f.failClosed {
		return ErrUnavailable
	}
	return f.secondary.Adjust(ctx, key, r, delta)
}

// usePrimary reports whether this call goes to the primary: always while
// it is up, and for one call a second while it is down.
func (f *Fallback) usePrimary() bool {
	if !f.down.Load() {
		return true
	}
	at, now := f.retryAt.Load(), f.now().UnixNano()
	return now >= at && f.retryAt.CompareAndSwap(at, now+int64(retryEvery))
}

// observe records the outcome of a call to the primary and returns err.
// Invalid input and a caller that has gone away say nothing about the
// primary's health.
func (f *Fallback) observe(ctx context.Context, err error) error {
	switch {
	case err == nil:
		if f.down.CompareAndSwap(true, false) {
			f.log.Info("rate limiter primary recovered", "failures", f.failures.Load())
		}
		return nil
	case errors.Is(err, ErrInvalid), ctx.Err() != nil:
		return err
	}
	f.failures.Add(1)
	if !f.down.Load() {
		// Before down is set: a caller seeing down must find the new
		// retry time, not the last outage's.
		f.retryAt.Store(f.now().Add(retryEvery).UnixNano())
	}
	if f.down.CompareAndSwap(false, true) {
		mode := "serving from secondary"
		if f.failClosed {
			mode = "refusing requests"
		}
		f.log.Warn("rate limiter primary failed, "+mode, "err", err)
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// failedOver reports whether err, returned by observe, should be served
// from the secondary.
func (f *Fallback) failedOver(err error) bool {
	return !f.failClosed && errors.Is(err, ErrUnavailable)
}
