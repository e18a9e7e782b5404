// Package events carries changes made by any process (a revoked key, later
// a new limit or allow-list) to every running server, so that caches are
// invalidated by events rather than by timers.
package events

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/backoff"
)

// Change is one row of the store's change feed.
type Change struct {
	Seq  int64
	Kind string // KindKey, KindAccount, KindAlerts
	Ref  string // the key's hash for KindKey, the account ID otherwise
}

// Kinds of change.
const (
	KindKey     = "key"
	KindAccount = "account"
	// KindAlerts: an account's billing alert rules changed.
	KindAlerts = "alerts"
)

// Source is a change feed: the store implements it for each database.
type Source interface {
	// LatestChange returns the sequence number of the newest change.
	LatestChange(ctx context.Context) (int64, error)
	// ChangesSince returns the changes after seq, oldest first.
	ChangesSince(ctx context.Context, seq int64) ([]Change, error)
	// Signal runs until ctx ends and sends on wake (without blocking)
	// whenever changes may be waiting: PostgreSQL NOTIFY, or a cheap
	// change check on SQLite.
	Signal(ctx context.Context, wake chan<- struct{})
}

// Watcher follows a Source and hands every change to its handlers.
type Watcher struct {
	src    Source
	log    *slog.Logger
	safety time.Duration // read the feed this often even without a signal

	mu       sync.Mutex // guards the following
	handlers []func(Change)
}

// NewWatcher returns a Watcher of src. safety is the interval of the
// catch-up read that runs even when no signal arrives (a lost notification
// during a reconnect, say).
func NewWatcher(src Source, log *slog.Logger, safety time.Duration) *Watcher {
	if log == nil {
		log = slog.Default()
	}
	return &Watcher{src: src, log: log, safety: safety}
}

// Handle registers fn to be called, from the watcher's goroutine, for every
// change read after Run started.
func (w *Watcher) Handle(fn func(Change)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.handlers = append(w.handlers, fn)
}

// Start reads the current position of the feed and then follows it in a
// goroutine until ctx ends; the returned function waits for that goroutine.
// Changes made before Start returns are not delivered: callers start the
// watcher before they fill their caches.
func (w *Watcher) Start(ctx context.Context) (wait func(), err error) {
	seq, err := w.src.LatestChange(ctx)
	if err != nil {
		return nil, err
	}
	wake := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Go(func() { w.src.Signal(ctx, wake) })
	wg.Go(func() { w.follow(ctx, seq, wake) })
	return wg.Wait, nil
}

// Wait before reading the feed again after a failed read (a connection
// the database dropped, say): from a few milliseconds up to a second.
const (
	readRetryMin = 5 * time.Millisecond
	readRetryMax = time.Second
)

func (w *Watcher) follow(ctx context.Context, seq int64, wake <-chan struct{}) {
	t := time.NewTicker(w.safety)
	defer t.Stop()
	retry := backoff.Backoff{Min: readRetryMin, Max: readRetryMax}
	var again <-chan time.Time // fires while the last read failed
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-t.C:
		case <-again:
		}
		var err error
		seq, err = w.read(ctx, seq)
		switch {
		case err == nil:
			again, failing = nil, false
			retry.Reset()
		case ctx.Err() != nil:
			return
		default:
			if !failing {
				w.log.Warn("read change feed", "err", err)
			}
			again, failing = time.After(retry.Next()), true
		}
	}
}

// read delivers the changes after seq and returns the new position.
func (w *Watcher) read(ctx context.Context, seq int64) (int64, error) {
	for {
		changes, err := w.src.ChangesSince(ctx, seq)
		if err != nil || len(changes) == 0 {
			return seq, err
		}
		w.mu.Lock()
		handlers := w.handlers
		w.mu.Unlock()
		for _, c := range changes {
			for _, h := range handlers {
				w.call(h, c)
			}
			seq = c.Seq
		}
	}
}

// call runs one handler; a panic is logged and does not stop the others.
func (w *Watcher) call(h func(Change), c Change) {
	defer func() {
		if r := recover(); r != nil {
			w.log.Error("change handler panicked", "seq", c.Seq, "kind", c.Kind, "panic", r)
		}
	}()
	h(c)
}
