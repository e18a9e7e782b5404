package provider

import (
	"context"
	"time"
)

// Timeouts bound a provider's calls. Zero means no bound.
type Timeouts struct {
	// Connect bounds opening a connection to the upstream.
	Connect time.Duration
	// FirstByte bounds the wait for a stream to begin (its response
	// headers). A call that is not streamed gets its whole answer at
	// once and is bounded by Total alone.
	FirstByte time.Duration
	// Idle bounds the silence between reads of a started stream.
	Idle time.Duration
	// Total bounds a whole call, a stream included.
	Total time.Duration
}

// Timeouter is a provider that reports its timeouts: the defaults of the
// deployments it serves.
type Timeouter interface {
	Timeouts() Timeouts
}

type timeoutsKey struct{}

// WithTimeouts returns ctx carrying a deployment's own first-byte and
// total timeouts for the calls made with it: a non-zero field replaces
// the provider's, longer or shorter. Connect and Idle stay the
// provider's.
func WithTimeouts(ctx context.Context, t Timeouts) context.Context {
	return context.WithValue(ctx, timeoutsKey{}, t)
}

// timeoutsFrom returns the timeouts WithTimeouts put in ctx, if any.
func timeoutsFrom(ctx context.Context) Timeouts {
	t, _ := ctx.Value(timeoutsKey{}).(Timeouts)
	return t
}

// bounds returns the first-byte and total timeouts of a call made with
// ctx: the deployment's when WithTimeouts set them, else the upstream's.
// The first byte never waits longer than the whole call.
func (u *Upstream) bounds(ctx context.Context) (firstByte, total time.Duration) {
	t := timeoutsFrom(ctx)
	total, firstByte = u.Timeout, u.FirstByteTimeout
	if t.Total > 0 {
		total = t.Total
	}
	if t.FirstByte > 0 {
		firstByte = t.FirstByte
	}
	if firstByte <= 0 || firstByte > total {
		firstByte = total
	}
	return firstByte, total
}

// Timeouts returns the upstream's timeouts.
func (u *Upstream) Timeouts() Timeouts {
	fb, total := u.bounds(context.Background())
	return Timeouts{Connect: u.ConnectTimeout, FirstByte: fb, Idle: u.IdleTimeout, Total: total}
}
