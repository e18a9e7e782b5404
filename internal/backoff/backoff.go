// Package backoff computes the jittered, doubling waits of a reconnect or
// probe loop.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the wait before each retry of a failing operation: the n-th
// wait is drawn uniformly from [d/2, d] where d = Min × 2^n, capped at
// Max. The jitter spreads the retries of many processes that lost the
// same server at the same moment. The zero Backoff is not usable; a
// Backoff is not safe for concurrent use.
type Backoff struct {
	Min, Max time.Duration

	next time.Duration // the cap of the next wait; 0 before the first
}

// Next returns the wait before the next retry and doubles the one after.
func (b *Backoff) Next() time.Duration {
	if b.next == 0 {
		b.next = b.Min
	}
	d := b.next
	b.next = min(2*b.next, b.Max)
	half := d / 2
	return half + rand.N(d-half+1)
}

// Reset starts the sequence again from Min, after a success.
func (b *Backoff) Reset() { b.next = 0 }

// Sleep waits d, or less when ctx ends (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
