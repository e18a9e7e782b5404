package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// BenchmarkWriteUsage measures the ledger writer's rows per second: one
// batch per iteration (500 records is a full batch of the meter), with
// rollups, on each backend.
func BenchmarkWriteUsage(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			s := storetest.Open(b, be.URL)
			n := 0
			for _, batch := range []int{500, 5000} {
				b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
					ctx := context.Background()
					recs := make([]meter.Record, batch)
					now := time.Now()
					b.ResetTimer()
					for b.Loop() {
						for i := range recs {
							n++
							recs[i] = benchRecord(n, now)
						}
						if _, err := s.WriteUsage(ctx, recs); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		})
	}
}

// benchRecord returns the nth record of the benchmark: four keys, three
// models, one account and day, so a batch rolls up into twelve rows.
func benchRecord(n int, now time.Time) meter.Record {
	return meter.Record{ID: fmt.Sprintf("usg_bench_%09d", n), RequestID: "req", Time: now,
		AccountID: "acct_bench", KeyID: fmt.Sprintf("key_%d", n%4), Endpoint: "chat.completions",
		Model: fmt.Sprintf("model-%d", n%3), Provider: "openai", UpstreamModel: "m", PromptTokens: 12,
		CompletionTokens: 30, TotalTokens: 42, InputPrice: 150000, OutputPrice: 600000,
		PriceVersion: "prices-bench", Cost: usd.Amount(12*150000 + 30*600000), Latency: time.Millisecond, Status: 200}
}
