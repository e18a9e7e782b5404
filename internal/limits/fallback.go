package limits

import (
	"context"
	"errors"
	"fmt"
)

// ErrUnavailable reports, in fail-closed mode, that the primary limiter
// is down and was not retried for this call.
var ErrUnavailable = errors.New("limits: primary limiter unavailable")

// Fallback uses a primary Limiter (Redis) and, while its Breaker is open,
// a secondary one (Memory): fail-open, so the gateway keeps serving with
// per-process limits. With FailClosed it returns ErrUnavailable instead.
// A call that fails on the primary opens the breaker and is served by the
// secondary; later calls skip the primary at once, without waiting for a
// timeout, until the breaker's background probe finds it up again.
//
// While down, each process enforces its share of every limit,
// ceil(limit / Replicas) (at least 1), so that Replicas processes
// together admit about the limit. Buckets are not copied between the two:
// after a switch, a key starts from what the other limiter last knew of
// it (a full share, at the first outage), and an Adjust that follows a
// Take on the other limiter corrects a bucket that never held the
// reservation (giving back never overfills it, so the error is bounded).
type Fallback struct {
	primary, secondary Limiter
	b                  *Breaker
	failClosed         bool
	replicas           int64
}

var _ Limiter = (*Fallback)(nil)

// FallbackOptions configures a Fallback.
type FallbackOptions struct {
	// Breaker tells whether the primary is up and is told of its
	// failures. Required; its Run must be running for the Fallback to
	// go back to the primary after a failure.
	Breaker *Breaker
	// FailClosed refuses calls while the primary is down.
	FailClosed bool
	// Replicas is how many processes share the primary's limits; each
	// enforces ceil(limit / Replicas) while the primary is down.
	// Default 1.
	Replicas int64
}

// NewFallback returns a Limiter that prefers primary and falls back to
// secondary.
func NewFallback(primary, secondary Limiter, opt FallbackOptions) *Fallback {
	return &Fallback{primary: primary, secondary: secondary, b: opt.Breaker,
		failClosed: opt.FailClosed, replicas: max(opt.Replicas, 1)}
}

// Take implements Limiter.
func (f *Fallback) Take(ctx context.Context, key string, r Rate, cost int64) (Decision, error) {
	if f.b.Up() {
		dec, err := f.primary.Take(ctx, key, r, cost)
		if err = f.observe(ctx, err); err == nil || !f.failedOver(err) {
			return dec, err
		}
	} else if f.failClosed {
		return Decision{}, ErrUnavailable
	}
	s := f.share(r)
	if cost <= r.Limit {
		// A cost that fits the limit but not the share passes when the
		// share is full, and empties it: it must not be refused as too
		// large while it is not.
		cost = min(cost, s.Limit)
	}
	return f.secondary.Take(ctx, key, s, cost)
}

// Adjust implements Limiter.
func (f *Fallback) Adjust(ctx context.Context, key string, r Rate, delta int64) error {
	if f.b.Up() {
		err := f.observe(ctx, f.primary.Adjust(ctx, key, r, delta))
		if err == nil || !f.failedOver(err) {
			return err
		}
	} else if f.failClosed {
		return ErrUnavailable
	}
	return f.secondary.Adjust(ctx, key, f.share(r), delta)
}

// share is this process's part of r while the primary is down.
func (f *Fallback) share(r Rate) Rate {
	if f.replicas == 1 {
		return r
	}
	return Rate{Limit: max(1, (r.Limit+f.replicas-1)/f.replicas), Period: r.Period}
}

// observe reports a failure of the primary to the breaker and returns
// err, marked ErrUnavailable when it was the primary's. Invalid input and
// a caller that has gone away say nothing about the primary's health.
func (f *Fallback) observe(ctx context.Context, err error) error {
	switch {
	case err == nil, errors.Is(err, ErrInvalid), ctx.Err() != nil:
		return err
	}
	f.b.Fail(err)
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// failedOver reports whether err, returned by observe, should be served
// from the secondary.
func (f *Fallback) failedOver(err error) bool {
	return !f.failClosed && errors.Is(err, ErrUnavailable)
}
