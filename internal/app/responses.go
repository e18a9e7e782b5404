package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/switchyard-gw/switchyard/internal/api"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// responseStore adapts the store to api.ResponseStore.
type responseStore struct{ s *store.Store }

func (r responseStore) SaveResponse(ctx context.Context, sr api.StoredResponse) error {
	return r.s.SaveResponse(ctx, store.StoredResponse(sr))
}

func (r responseStore) Response(ctx context.Context, accountID, id string) (api.StoredResponse, error) {
	sr, err := r.s.Response(ctx, accountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.StoredResponse{}, api.ErrResponseNotFound
	}
	return api.StoredResponse(sr), err
}

func (r responseStore) DeleteResponse(ctx context.Context, accountID, id string) error {
	err := r.s.DeleteResponse(ctx, accountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.ErrResponseNotFound
	}
	return err
}

// Purging expired responses: every purgeInterval, batches of purgeBatch
// rows until a batch comes back short.
const (
	purgeInterval = 5 * time.Minute
	purgeBatch    = 500
)

// purger deletes the stored responses that have expired.
type purger struct {
	s        *store.Store
	log      *slog.Logger
	interval time.Duration
	batch    int
}

// Run purges at once and then every interval until ctx ends.
func (p purger) Run(ctx context.Context) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		p.purge(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// purge deletes what expired by now, one batch at a time, and returns
// how many rows it deleted.
func (p purger) purge(ctx context.Context, now time.Time) int {
	total := 0
	for ctx.Err() == nil {
		n, err := p.s.PurgeResponses(ctx, now, p.batch)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				p.log.Warn("purge expired responses", "err", err)
			}
			break
		}
		if n < p.batch {
			break
		}
	}
	if total > 0 {
		p.log.Info("purged expired responses", "count", total)
	}
	return total
}
