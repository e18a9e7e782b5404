package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// flakySink is a store whose first two writes fail: the first before
// it reaches the database, the second after its transaction committed
// (an answer lost on the way back).
type flakySink struct {
	*store.Store
	calls atomic.Int64
}

func (s *flakySink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	switch s.calls.Add(1) {
	case 1:
		return 0, errors.New("connection refused")
	case 2:
		if _, err := s.Store.WriteUsage(ctx, recs); err != nil {
			return 0, err
		}
		return 0, errors.New("connection reset")
	}
	return s.Store.WriteUsage(ctx, recs)
}

// TestMeterWritersPostgres writes a backlog through a meter that writes
// two batches at once, on two connections, into rollup rows that both
// batches of a round update. The first round fails both ways: one batch
// before the database, the other after its commit, so that the retry
// of the whole round meets the committed batch's records. No deadlock,
// every record stored once, and the rollup counts each once.
func TestMeterWritersPostgres(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, storetest.PostgresURL(t))
	sink := &flakySink{Store: st}
	m, err := meter.New(sink, meter.Options{Dir: t.TempDir(), BatchSize: 50, Writers: 2,
		FlushInterval: 10 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"m1", "m2", "m3"}
	var all []meter.Record
	for n := range 400 {
		r := usageRecord(n, "acct_a", fmt.Sprintf("key_%d", n%4), models[n%3], "2026-05-01", 200+n%5/4*300)
		all = append(all, r)
		m.Record(&r)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { m.Run(rctx); close(done) }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, _ := st.CountUsage(ctx, "acct_a"); n == int64(len(all)) && m.Stats().Queued == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the records")
		}
	}
	cancel()
	<-done
	if got := m.Stats(); got.SinkFailures != 1 || got.Written > int64(len(all)) {
		t.Errorf("stats = %+v: want one failed round, at most %d written", got, len(all))
	}
	if store.UsageStagedForTest(st) == 0 {
		t.Error("no batch met stored records: the committed batch was not written again")
	}
	want := totalsByModel(all, models)
	if diff := cmp.Diff(want, summary(t, st, store.UsageQuery{AccountID: "acct_a", By: "model"})); diff != "" {
		t.Errorf("rollup (-want +got):\n%s", diff)
	}
}
