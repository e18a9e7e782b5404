package alerts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// WorkerOptions configure a Worker. Zero values take the defaults.
type WorkerOptions struct {
	// Webhook sends webhook deliveries. Default NewWebhook(WebhookOptions{}):
	// public addresses only.
	Webhook Sender
	// Email sends email deliveries. Default none: they fail with
	// "SMTP is not configured".
	Email Sender
	// PollInterval is how often due deliveries are looked for when nothing
	// kicks the worker. Default 1s.
	PollInterval time.Duration
	// Lease is how long a claimed delivery is hidden from other workers
	// while it is being sent. Default 2m.
	Lease time.Duration
	// BatchSize is the most deliveries claimed, and sent concurrently, at
	// once. Default 20.
	BatchSize int
	// AttemptTimeout bounds one send; keep it well under Lease. Default 30s.
	AttemptTimeout time.Duration
	// MaxAttempts is how many failed attempts fail a delivery. Default 8.
	MaxAttempts int
	// BackoffBase and BackoffMax space the attempts: after the n-th failed
	// one the next is due min(BackoffBase·2^(n−1), BackoffMax) later.
	// Defaults 2s and 10m.
	BackoffBase, BackoffMax time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Log defaults to slog.Default().
	Log *slog.Logger
}

// Worker sends the store's due deliveries and records their outcomes.
// Any number of workers, in any number of processes, may share a store:
// claiming leases each delivery to one of them.
type Worker struct {
	st   Store
	opt  WorkerOptions
	kick chan struct{}
}

// NewWorker returns a Worker of st. Call Run to start it.
func NewWorker(st Store, opts WorkerOptions) *Worker {
	if opts.Webhook == nil {
		opts.Webhook = NewWebhook(WebhookOptions{})
	}
	setDefault(&opts.PollInterval, time.Second)
	setDefault(&opts.Lease, 2*time.Minute)
	setDefault(&opts.BatchSize, 20)
	setDefault(&opts.AttemptTimeout, 30*time.Second)
	setDefault(&opts.MaxAttempts, 8)
	setDefault(&opts.BackoffBase, 2*time.Second)
	setDefault(&opts.BackoffMax, 10*time.Minute)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Worker{st: st, opt: opts, kick: make(chan struct{}, 1)}
}

func setDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Kick makes Run look for due deliveries now rather than at the next
// poll. It never blocks.
func (w *Worker) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends. Sends cut short by ctx ending
// are not counted as attempts: their lease runs out and they go out later.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.opt.PollInterval)
	defer t.Stop()
	for {
		if w.poll(ctx) && ctx.Err() == nil {
			continue // a full batch: more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.kick:
		}
	}
}

// poll claims one batch of due deliveries and sends them concurrently. It
// reports whether the batch was full.
func (w *Worker) poll(ctx context.Context) (full bool) {
	defer func() {
		if r := recover(); r != nil {
			w.opt.Log.Error("alert delivery poll panicked", "panic", r)
			full = false
		}
	}()
	claims, err := w.st.ClaimDeliveries(ctx, w.opt.Now(), w.opt.Lease, w.opt.BatchSize)
	if err != nil {
		if ctx.Err() == nil {
			w.opt.Log.Error("claim alert deliveries", "err", err)
		}
		return false
	}
	var wg sync.WaitGroup
	for _, c := range claims {
		wg.Go(func() { w.deliver(ctx, c) })
	}
	wg.Wait()
	return len(claims) >= w.opt.BatchSize
}

// deliver makes one attempt at c and records its outcome.
func (w *Worker) deliver(ctx context.Context, c Claim) {
	defer func() {
		if r := recover(); r != nil {
			w.opt.Log.Error("alert delivery panicked", "delivery_id", c.Delivery.ID, "panic", r)
		}
	}()
	sctx, cancel := context.WithTimeout(ctx, w.opt.AttemptTimeout)
	err := w.send(sctx, c)
	cancel()
	if err != nil && ctx.Err() != nil {
		return // shutting down: not this delivery's fault
	}
	d := w.outcome(c.Delivery, err)
	// The attempt happened: record it even if ctx ends meanwhile, lest
	// the delivery be sent again when its lease runs out.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if ferr := w.st.FinishDelivery(fctx, d); ferr != nil {
		w.opt.Log.Error("record alert delivery", "delivery_id", d.ID, "status", d.Status, "err", ferr)
		return
	}
	w.logOutcome(c, d, err)
}

// send picks c's channel's sender and runs it, turning a panic into an
// error.
func (w *Worker) send(ctx context.Context, c Claim) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = classed("delivery failed", fmt.Errorf("%s sender panicked: %v", c.Delivery.Channel, r))
		}
	}()
	switch c.Delivery.Channel {
	case ChannelWebhook:
		return w.opt.Webhook.Send(ctx, c)
	case ChannelEmail:
		if w.opt.Email == nil {
			return errSMTPNotConfigured
		}
		return w.opt.Email.Send(ctx, c)
	}
	return permanent(classed("unknown channel", fmt.Errorf("unknown delivery channel %q", c.Delivery.Channel)))
}

// outcome is d after an attempt that returned err.
func (w *Worker) outcome(d Delivery, err error) Delivery {
	now := w.opt.Now()
	d.Attempts++
	switch {
	case err == nil:
		d.Status, d.DeliveredAt, d.LastError = StatusDelivered, now, ""
	case errors.Is(err, ErrPermanent) || d.Attempts >= w.opt.MaxAttempts:
		d.Status, d.LastError = StatusFailed, errorClass(err)
	default:
		d.Status, d.LastError = StatusPending, errorClass(err)
		d.NextAttemptAt = now.Add(w.backoff(d.Attempts))
	}
	return d
}

// backoff is the wait after the n-th failed attempt.
func (w *Worker) backoff(n int) time.Duration {
	d := w.opt.BackoffBase
	for i := 1; i < n && d < w.opt.BackoffMax; i++ {
		d *= 2
	}
	return min(d, w.opt.BackoffMax)
}

// logOutcome logs d for the operator, with the whole error where the
// owner's LastError has only its class.
func (w *Worker) logOutcome(c Claim, d Delivery, err error) {
	attrs := []any{"delivery_id", d.ID, "event_id", c.Event.ID, "account_id", c.Event.AccountID,
		"channel", d.Channel, "attempts", d.Attempts}
	switch d.Status {
	case StatusDelivered:
		w.opt.Log.Info("alert delivered", attrs...)
	case StatusFailed:
		w.opt.Log.Warn("alert delivery failed", append(attrs, "err", err)...)
	default:
		w.opt.Log.Warn("alert delivery will be retried", append(attrs, "err", err, "next_attempt_at", d.NextAttemptAt)...)
	}
}
