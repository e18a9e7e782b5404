package alerts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// BenchmarkObserve is the observer's share of a metered record, past the
// first ones (the account's rules and fired alerts are cached, its $10
// alert fired). "a pass each" is a record followed by a pass of its own;
// "Run" is records from one goroutine, with Run processing them in the
// background as in the gateway: back to back, and spaced by a sleep
// (50µs asked, more given) as at one client, where a record finds Run
// parked and, unless passes are spaced, wakes it for a pass of its own.
func BenchmarkObserve(b *testing.B) {
	st := newFakeStore()
	threeRules(st)
	spend := dollars(20)
	next := func() usd.Amount { spend += usd.Micro; return spend }

	b.Run("a pass each", func(b *testing.B) {
		ctx := b.Context()
		o := newObserver(st, newClock())
		o.Observe("acct_1", "2026-11", next())
		o.Pass(ctx)
		b.ReportAllocs()
		for b.Loop() {
			o.Observe("acct_1", "2026-11", next())
			o.Pass(ctx)
		}
	})
	for _, gap := range []time.Duration{0, 50 * time.Microsecond} {
		name := "Run/back to back"
		if gap > 0 {
			name = "Run/spaced"
		}
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(b.Context())
			o := alerts.NewObserver(st, alerts.ObserverOptions{Log: quiet})
			var wg sync.WaitGroup
			wg.Go(func() { o.Run(ctx) })
			b.ReportAllocs()
			for b.Loop() {
				o.Observe("acct_1", "2026-11", next())
				if gap > 0 {
					time.Sleep(gap)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}
