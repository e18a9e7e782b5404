package alerts

import (
	"context"
	"net/netip"
	"time"
)

// Poll runs one claim-and-send round, as Run does on each tick.
func (w *Worker) Poll(ctx context.Context) bool { return w.poll(ctx) }

// Backoff is the wait after the n-th failed attempt.
func (w *Worker) Backoff(n int) time.Duration { return w.backoff(n) }

// Pass processes the pending observations, as Run does when woken.
func (o *Observer) Pass(ctx context.Context) { o.pass(ctx) }

// SetAfter gives Run after instead of a timer, to wait between passes.
// Call it before Run.
func (o *Observer) SetAfter(after func(time.Duration) <-chan time.Time) { o.after = after }

// CheckAddress is the network guard's verdict on ip.
func CheckAddress(allowPrivate bool, allowed []netip.Prefix, ip netip.Addr) error {
	return guard{allowPrivate: allowPrivate, allowed: allowed}.check(ip)
}

// ErrorClass is what owners see of a delivery error.
func ErrorClass(err error) string { return errorClass(err) }
