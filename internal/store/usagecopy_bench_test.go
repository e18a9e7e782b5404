package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// BenchmarkWriteUsageReplay measures the PostgreSQL writer's slow path,
// which a batch holding stored records takes (a journal replayed after a
// crash): each batch of 500 holds 250 stored records and 250 new ones,
// and rows/s counts the new ones. Record IDs sort by arrival, so in a
// replay the stored records usually come first and the fast path's COPY
// fails at its first row ("stored=first"); "stored=last" is the worst
// case, where the COPY inserts the new half before it meets a stored ID
// and is rolled back.
func BenchmarkWriteUsageReplay(b *testing.B) {
	ctx := context.Background()
	s := storetest.Open(b, storetest.PostgresURL(b))
	const batch, stored = 500, 250
	n := 0
	for _, first := range []bool{true, false} {
		name := map[bool]string{true: "stored=first", false: "stored=last"}[first]
		b.Run(name, func(b *testing.B) {
			recs := make([]meter.Record, batch)
			now := time.Now()
			for b.Loop() {
				b.StopTimer()
				for i := range recs {
					recs[i] = benchRecord(n+i, now)
				}
				old := recs[batch-stored:]
				if first {
					old = recs[:stored]
				}
				if _, err := s.WriteUsage(ctx, old); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if got, err := s.WriteUsage(ctx, recs); err != nil || got != batch-stored {
					b.Fatalf("WriteUsage = %d, %v; want %d", got, err, batch-stored)
				}
				n += batch
			}
			b.ReportMetric(float64(b.N*(batch-stored))/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkWriteUsageSpread is BenchmarkWriteUsage's PostgreSQL case
// with the spread of a busy gateway instead of one account, four keys and
// one instant: 500 records a batch over 20 accounts, 200 keys and 8
// models, a millisecond apart, so that the ledger's indexes are
// inserted into at many places, not only at their right end.
func BenchmarkWriteUsageSpread(b *testing.B) {
	ctx := context.Background()
	s := storetest.Open(b, storetest.PostgresURL(b))
	const batch = 500
	recs := make([]meter.Record, batch)
	start, n := time.Now(), 0
	for b.Loop() {
		for i := range recs {
			n++
			r := benchRecord(n, start.Add(time.Duration(n)*time.Millisecond))
			r.AccountID, r.KeyID = fmt.Sprintf("acct_%02d", n%20), fmt.Sprintf("key_%03d", n%200)
			r.Model = fmt.Sprintf("model-%d", n%8)
			r.RequestedModel = r.Model
			recs[i] = r
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
}
