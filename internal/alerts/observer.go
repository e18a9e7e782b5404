// Package alerts fires billing alerts when an account's monthly spend
// reaches a threshold, and delivers them by webhook and email.
package alerts

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Kicker is told when new deliveries are waiting (a Worker).
type Kicker interface {
	Kick()
}

// ObserverOptions configure an Observer. Zero values take the defaults.
type ObserverOptions struct {
	// Worker is kicked after this process stores an event, so that its
	// deliveries go out at once. Default none: they wait for a poll.
	Worker Kicker
	// StoreTimeout bounds each store call. Default 10s.
	StoreTimeout time.Duration
	// PassInterval is the least time from one pass over the observations
	// to the next: those coming meanwhile are checked together, so a
	// steady stream of records costs a pass per interval, not a wake-up
	// and a pass per record. An alert waits for its check at most this
	// long (and the pass under way). Default 100ms, the meter's flush
	// interval: the records themselves reach the database at that pace.
	PassInterval time.Duration
	// Now stamps events. Default time.Now.
	Now func() time.Time
	// Log defaults to slog.Default().
	Log *slog.Logger
}

// obsKey is an account's calendar month.
type obsKey struct {
	account, period string // period is "2006-01"
}

// Observer turns month-to-date spend into alert events. Observe, on the
// metering path, only notes the spend; Run compares it with the account's
// rules. The test is "spend >= threshold and no event yet", not the
// crossing itself, so a restart or another replica missing the crossing
// loses nothing, and the store's FireAlert keeps it to one event.
type Observer struct {
	st    Store
	opt   ObserverOptions
	wake  chan struct{}                        // capacity 1: "pending has something"
	after func(time.Duration) <-chan time.Time // nil: a timer of Run's; tests hold their own
	spare map[obsKey]usd.Amount                // empty or nil; pass's alone: the next pending

	mu      sync.Mutex
	pending map[obsKey]usd.Amount // guarded by mu: highest spend seen since the last pass

	cmu   sync.Mutex // guards the following caches
	gen   uint64     // bumped by every Invalidate
	rules map[string][]Rule
	fired map[string]map[string]map[string]bool // account → period → rule ID
}

// NewObserver returns an Observer of st. Call Run to process observations.
func NewObserver(st Store, opts ObserverOptions) *Observer {
	setDefault(&opts.StoreTimeout, 10*time.Second)
	setDefault(&opts.PassInterval, 100*time.Millisecond)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Observer{
		st: st, opt: opts, wake: make(chan struct{}, 1),
		pending: map[obsKey]usd.Amount{},
		spare:   map[obsKey]usd.Amount{},
		rules:   map[string][]Rule{},
		fired:   map[string]map[string]map[string]bool{},
	}
}

// Observe notes an account's new spend in period ("2006-01"). It never
// blocks and does no I/O: observations are coalesced per account and
// month, keeping the highest spend (concurrent callers may report totals
// out of order), for Run to process.
func (o *Observer) Observe(accountID, period string, spend usd.Amount) {
	k := obsKey{accountID, period}
	o.mu.Lock()
	if cur, ok := o.pending[k]; !ok || spend > cur {
		o.pending[k] = spend
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Invalidate drops what is cached of the account's rules and fired
// alerts; call it when they change (a KindAlerts or KindAccount event).
func (o *Observer) Invalidate(accountID string) {
	o.cmu.Lock()
	defer o.cmu.Unlock()
	o.gen++
	delete(o.rules, accountID)
	delete(o.fired, accountID)
}

// Run processes observations until ctx ends. Call it once. A pass
// follows the first observation at once; the next waits until
// PassInterval after it. What is still pending when ctx ends is checked
// once more, so that a threshold reached just before a shutdown does not
// wait for the account's next request after it.
func (o *Observer) Run(ctx context.Context) {
	after := o.after
	if after == nil {
		t := time.NewTimer(o.opt.PassInterval)
		defer t.Stop()
		after = func(d time.Duration) <-chan time.Time { t.Reset(d); return t.C }
	}
	defer o.lastPass(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		o.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-after(o.opt.PassInterval):
		}
	}
}

// lastPass checks what ctx's end left pending, within one StoreTimeout.
func (o *Observer) lastPass(ctx context.Context) {
	o.mu.Lock()
	n := len(o.pending)
	o.mu.Unlock()
	if n == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.opt.StoreTimeout)
	defer cancel()
	o.pass(ctx)
}

// maxSpare is the most observations a pass may have had for its map to
// be kept for a later one: maps do not shrink, and one that a burst or a
// store outage filled with many accounts should not stay that big.
const maxSpare = 1024

// pass processes the observations pending now. One that fails (a store
// error) is put back, to be tried again with the next observation; so is
// one that ctx's end leaves unchecked, for lastPass. The two maps take
// turns, so that a pass allocates none.
func (o *Observer) pass(ctx context.Context) {
	next := o.spare
	if next == nil {
		next = map[obsKey]usd.Amount{}
	}
	o.mu.Lock()
	batch := o.pending
	o.pending = next
	o.mu.Unlock()
	for k, spend := range batch {
		if ctx.Err() != nil {
			o.requeue(k, spend)
			continue
		}
		if err := o.check(ctx, k, spend); err != nil {
			o.opt.Log.Error("billing alert check failed; retrying with the next observation",
				"account_id", k.account, "period", k.period, "err", err)
			o.requeue(k, spend)
		}
	}
	o.spare = nil
	if len(batch) <= maxSpare {
		clear(batch)
		o.spare = batch
	}
}

// requeue puts an observation back, unless a higher one came meanwhile.
func (o *Observer) requeue(k obsKey, spend usd.Amount) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if cur, ok := o.pending[k]; !ok || spend > cur {
		o.pending[k] = spend
	}
}

// check fires every rule of k's account whose threshold spend reaches and
// that has no event for k's period yet.
func (o *Observer) check(ctx context.Context, k obsKey, spend usd.Amount) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	rules, err := o.accountRules(ctx, k.account)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if r.Threshold > spend {
			continue
		}
		fired, err := o.firedRules(ctx, k)
		if err != nil {
			return err
		}
		if fired[r.ID] {
			continue
		}
		if err := o.fire(ctx, k, r, spend); err != nil {
			return err
		}
	}
	return nil
}

// fire stores r's event for k and marks it fired, whoever stored it.
func (o *Observer) fire(ctx context.Context, k obsKey, r Rule, spend usd.Amount) error {
	ev := Event{
		ID: newEventID(), RuleID: r.ID, AccountID: k.account, Period: k.period,
		Threshold: r.Threshold, Spend: spend, CreatedAt: o.opt.Now().UTC(),
	}
	sctx, cancel := context.WithTimeout(ctx, o.opt.StoreTimeout)
	stored, err := o.st.FireAlert(sctx, r, ev)
	cancel()
	if err != nil {
		return fmt.Errorf("fire alert of rule %s: %w", r.ID, err)
	}
	o.markFired(k, r.ID)
	if stored { // else another process stored it first
		o.opt.Log.Info("billing alert fired", "event_id", ev.ID, "rule_id", r.ID, "account_id", k.account,
			"period", k.period, "threshold", r.Threshold.String(), "spend", spend.String())
	}
	if o.opt.Worker != nil {
		o.opt.Worker.Kick() // cheap, and the deliveries are due either way
	}
	return nil
}

func newEventID() string { return "alev_" + strings.ToLower(rand.Text()) }
