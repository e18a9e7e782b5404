package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// Usage retention (metering.retention): every retentionInterval, usage
// records older than the retention are deleted retentionBatch rows at a
// time, retentionPause apart, so that the writer of new records and the
// readers of the request log wait at most one short batch.
const (
	retentionInterval = time.Hour
	retentionBatch    = 1000
	retentionPause    = 100 * time.Millisecond
)

// usagePurger deletes the usage records older than keep. The daily
// rollup is never deleted.
type usagePurger struct {
	s     *store.Store
	log   *slog.Logger
	keep  time.Duration
	every time.Duration // between runs
	batch int
	pause time.Duration // between batches
	now   func() time.Time
}

// newUsagePurger returns the purger of the app's store with the
// production intervals.
func newUsagePurger(s *store.Store, log *slog.Logger, keep time.Duration) usagePurger {
	return usagePurger{s: s, log: log, keep: keep, every: retentionInterval, batch: retentionBatch,
		pause: retentionPause, now: time.Now}
}

// Run purges at once and then every interval until ctx ends.
func (p usagePurger) Run(ctx context.Context) {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		p.run(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// run deletes, batch after batch, what is older than keep now, until a
// batch comes back short, and logs once what it did. A panic is logged,
// not raised: the next run tries again.
func (p usagePurger) run(ctx context.Context) (deleted int) {
	began := time.Now()
	cutoff := p.now().Add(-p.keep)
	batches := 0
	var err error
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
		if err != nil && ctx.Err() == nil {
			p.log.Warn("usage retention", "deleted", deleted, "batches", batches, "err", err)
			return
		}
		p.log.Info("usage retention", "deleted", deleted, "batches", batches,
			"before", cutoff.UTC().Format(time.RFC3339), "duration", time.Since(began).Round(time.Millisecond).String())
	}()
	for ctx.Err() == nil {
		var n int
		n, err = p.s.PurgeUsage(ctx, cutoff, p.batch)
		deleted += n
		batches++
		if err != nil || n < p.batch {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(p.pause):
		}
	}
	return deleted
}
