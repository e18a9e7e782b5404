package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestPurger deletes every expired response, in batches, keeps the live
// ones, and stops with its context.
func TestPurger(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		now := time.Now().UTC().Truncate(time.Millisecond)
		save := func(id string, expires time.Time) {
			t.Helper()
			err := s.SaveResponse(ctx, store.StoredResponse{ID: id, AccountID: "acct_1", CreatedAt: expires.Add(-time.Hour),
				ExpiresAt: expires, InputItems: []byte("[]"), OutputItems: []byte("[]"), Response: []byte("{}")})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := range 7 {
			save(fmt.Sprintf("resp_old%d", i), now.Add(-time.Duration(i+1)*time.Minute))
		}
		save("resp_live", now.Add(time.Hour))
		p := purger{s, slog.New(slog.DiscardHandler), time.Hour, 3}
		if n := p.purge(ctx, now); n != 7 {
			t.Errorf("purged %d, want 7", n)
		}
		for i := range 7 {
			if _, err := s.Response(ctx, "acct_1", fmt.Sprintf("resp_old%d", i)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("resp_old%d: %v, want ErrNotFound", i, err)
			}
		}
		if _, err := s.Response(ctx, "acct_1", "resp_live"); err != nil {
			t.Errorf("live response: %v", err)
		}

		// Run purges at once, then stops when told.
		save("resp_late", now.Add(-time.Second))
		logged := make(chan string, 10)
		p.log = slog.New(chanHandler(logged))
		checkRunsAndStops(t, p.Run, logged, "purged expired responses")
	})
}

// chanHandler is a slog.Handler that sends each message to its channel.
type chanHandler chan<- string

func (h chanHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h chanHandler) Handle(_ context.Context, r slog.Record) error {
	h <- r.Message
	return nil
}
func (h chanHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h chanHandler) WithGroup(string) slog.Handler      { return h }
