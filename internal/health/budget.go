package health

import (
	"sync"
	"time"
)

// budget counts one model's first attempts and retries in a ring of
// one-second buckets covering BudgetWindow.
type budget struct {
	mu      sync.Mutex // guards buckets
	buckets []bucket
}

// bucket is one second of a budget.
type bucket struct {
	sec               int64 // Unix seconds it counts; stale when outside the window
	attempts, retries int64
}

// Attempt counts a first attempt at model: the base of its retry budget.
func (t *Tracker) Attempt(model string) {
	cfg := t.config()
	b := t.budget(model)
	b.mu.Lock()
	b.bucketLocked(t.now().Unix(), cfg).attempts++
	b.mu.Unlock()
}

// TryRetry reports whether one more retry at model fits its budget, and
// counts it when it does: over the last BudgetWindow, retries stay below
// max(BudgetRatio × first attempts, BudgetMinPerSecond × BudgetWindow in
// seconds).
func (t *Tracker) TryRetry(model string) bool {
	cfg := t.config()
	b := t.budget(model)
	sec := t.now().Unix()
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.bucketLocked(sec, cfg)
	var attempts, retries int64
	for _, x := range b.buckets {
		if sec-x.sec < int64(len(b.buckets)) {
			attempts += x.attempts
			retries += x.retries
		}
	}
	allowed := max(cfg.BudgetRatio*float64(attempts), cfg.BudgetMinPerSecond*cfg.BudgetWindow.Seconds())
	if float64(retries) >= allowed {
		return false
	}
	cur.retries++
	return true
}

// budget returns model's budget, made on first use.
func (t *Tracker) budget(model string) *budget {
	if v, ok := t.models.Load(model); ok {
		return v.(*budget)
	}
	v, _ := t.models.LoadOrStore(model, &budget{})
	return v.(*budget)
}

// bucketLocked returns the bucket of second sec, emptied if it held an
// older second. A window changed by SetConfig starts the ring afresh.
func (b *budget) bucketLocked(sec int64, cfg *Config) *bucket {
	n := int64(cfg.BudgetWindow / time.Second)
	if int64(len(b.buckets)) != n {
		b.buckets = make([]bucket, n)
	}
	x := &b.buckets[sec%n]
	if x.sec != sec {
		*x = bucket{sec: sec}
	}
	return x
}
