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
// batch of 500 records (a full batch of the meter) per iteration, with
// rollups, on each backend.
func BenchmarkWriteUsage(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			s := storetest.Open(b, be.URL)
			ctx := context.Background()
			const batch = 500
			recs := make([]meter.Record, batch)
			now := time.Now()
			n := 0
			b.ResetTimer()
			for b.Loop() {
				for i := range recs {
					n++
					recs[i] = meter.Record{ID: fmt.Sprintf("usg_bench_%09d", n), RequestID: "req", Time: now,
						AccountID: "acct_bench", KeyID: fmt.Sprintf("key_%d", n%4), Endpoint: "chat.completions",
						Model: fmt.Sprintf("model-%d", n%3), Provider: "openai", UpstreamModel: "m", PromptTokens: 12,
						CompletionTokens: 30, TotalTokens: 42, InputPrice: 150000, OutputPrice: 600000,
						PriceVersion: "prices-bench", Cost: usd.Amount(12*150000 + 30*600000), Latency: time.Millisecond, Status: 200}
				}
				if _, err := s.WriteUsage(ctx, recs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
