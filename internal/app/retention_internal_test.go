package app

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestUsagePurger deletes the records older than the retention, in
// batches, keeps the recent ones and the daily rollup, logs once a run,
// and stops with its context.
func TestUsagePurger(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		keep := 30 * 24 * time.Hour
		var recs []meter.Record
		for i := range 25 {
			age := keep + time.Duration(i+1)*time.Hour // older than keep
			if i >= 18 {
				age = time.Duration(i) * time.Hour // recent
			}
			recs = append(recs, meter.Record{ID: fmt.Sprintf("usg_%02d", i), RequestID: "req", Time: now.Add(-age),
				AccountID: "acct_1", KeyID: "key_1", Endpoint: "chat.completions", Model: "gpt-4o", Status: 200, Cost: 1000})
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		q := store.UsageQuery{AccountID: "acct_1", By: "model"}
		rollup, err := s.UsageSummary(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		logged := make(chan string, 10)
		p := usagePurger{s: s, log: slog.New(chanHandler(logged)), keep: keep, every: time.Hour, batch: 5,
			pause: time.Millisecond, now: func() time.Time { return now }}
		if n := p.run(ctx); n != 18 {
			t.Errorf("run deleted %d, want 18", n)
		}
		if msgs := drain(logged); len(msgs) != 1 || msgs[0] != "usage retention" {
			t.Errorf("run logged %q, want one line", msgs)
		}
		if n, err := s.CountUsage(ctx, ""); err != nil || n != 7 {
			t.Errorf("%d records left (%v), want the 7 recent ones", n, err)
		}
		after, err := s.UsageSummary(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != 1 || after[0] != rollup[0] {
			t.Errorf("rollup %+v after the purge, want %+v", after, rollup)
		}

		checkRunsAndStops(t, p.Run, logged, "usage retention")
	})
}

// checkRunsAndStops starts run, a background loop that logs msg to
// logged when it has done its work, and checks that it does so at once
// and stops when its context ends.
func checkRunsAndStops(t *testing.T, run func(context.Context), logged <-chan string, msg string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { run(ctx); close(done) }()
	select {
	case got := <-logged:
		if got != msg {
			t.Errorf("Run logged %q, want %q", got, msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not work at once")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop with its context")
	}
}

// drain returns what is in c now.
func drain(c chan string) []string {
	var out []string
	for {
		select {
		case m := <-c:
			out = append(out, m)
		default:
			return out
		}
	}
}
