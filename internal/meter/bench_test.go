package meter_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// countSink counts records and keeps none, so that a benchmark measures
// the meter and not a ledger.
type countSink struct{ n atomic.Int64 }

func (s *countSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	s.n.Add(int64(len(recs)))
	return len(recs), nil
}

// noSpend is a Spender that does nothing, to count the meter's own cost
// of telling one.
type noSpend struct{}

func (noSpend) AddSpend(accountID, keyID, period string, cost usd.Amount) {}

// BenchmarkRecord measures what metering costs a request: Record (the
// spend, the journal's encode and write(2), the queue) and the writer
// goroutine's share (taking, holding and batching the record), with a
// sink that keeps nothing. A request's record is built by the gateway,
// outside Record, so one record is given again and again. "serial" is
// one client; "parallel" is 16 goroutines on the benchmark's CPUs,
// whose lines share writes.
func BenchmarkRecord(b *testing.B) {
	r := &meter.Record{ID: "usg_01JDQ3Y1V6A4ZK2W9X8C7B5N3M", RequestID: "req_6f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f",
		Time: time.Now(), AccountID: "acct_01JDQ3X4M2", KeyID: "key_01JDQ3X5N7", Endpoint: "chat.completions",
		Model: "gpt-4o-mini", Provider: "openai", UpstreamModel: "gpt-4o-mini-2024-07-18", Deployment: "openai/gpt-4o-mini-2024-07-18",
		Attempts: 1, PromptTokens: 1234, CompletionTokens: 567, TotalTokens: 1801, InputPrice: 150_000, CachedPrice: 75_000,
		OutputPrice: 600_000, PriceVersion: "2026-11-01", Cost: usd.Amount(525_300_000), Latency: 812345 * time.Nanosecond, Status: 200}
	run := func(b *testing.B, parallel bool) {
		m, err := meter.New(&countSink{}, meter.Options{Dir: b.TempDir(), Spend: noSpend{}, Log: quiet()})
		if err != nil {
			b.Fatal(err)
		}
		defer start(m)()
		b.ReportAllocs()
		if !parallel {
			for b.Loop() {
				m.Record(r)
			}
			return
		}
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Record(r)
			}
		})
	}
	b.Run("serial", func(b *testing.B) { run(b, false) })
	b.Run("parallel", func(b *testing.B) { run(b, true) })
}
