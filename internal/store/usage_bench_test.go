package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// BenchmarkWriteUsage measures the ledger writer's rows per second: one
// batch per iteration (500 records is a full batch of the meter, 20 one
// that a quiet gateway flushes on time), with rollups, on each backend.
func BenchmarkWriteUsage(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			s := storetest.Open(b, be.URL)
			n := 0
			for _, batch := range []int{20, 500, 5000} {
				b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
					benchWriteUsage(b, s, batch, &n, benchRecord)
				})
			}
		})
	}
}

// BenchmarkTenantsWriteUsage is BenchmarkWriteUsage's full batch with
// the traffic of many tenants: 50 accounts of two keys each, and three
// models. The indexes that lead with the account or the key then insert
// within the tree rather than at its end, and a batch rolls up into 300
// rows instead of 12, each an upsert: on SQLite a record costs a quarter
// more instructions than with one account's traffic, three quarters of
// that the rollup's (issue 18).
func BenchmarkTenantsWriteUsage(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			n := 0
			benchWriteUsage(b, storetest.Open(b, be.URL), 500, &n, tenantRecords())
		})
	}
}

// benchWriteUsage writes one batch of batch records a loop, the nth
// record of the store (*n counts them) made by rec, and reports rows per
// second and CPU time per row. As in the meter, each batch has a
// deadline: with one, the drivers watch every statement for cancellation.
func benchWriteUsage(b *testing.B, s *store.Store, batch int, n *int, rec func(n int, now time.Time) meter.Record) {
	ctx := context.Background()
	recs := make([]meter.Record, batch)
	now := time.Now()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		for i := range recs {
			*n++
			recs[i] = rec(*n, now)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		_, err := s.WriteUsage(wctx, recs)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N*batch), "cpu-µs/row")
}

// benchRecord returns the nth record of the benchmark: four keys, three
// models, one account and day, so a batch rolls up into twelve rows. As
// in the gateway's traffic, most requests ask for the model that answers
// them and succeed: every 50th asked for another, every 100th got a 429.
func benchRecord(n int, now time.Time) meter.Record {
	model, asked, status := fmt.Sprintf("model-%d", n%3), fmt.Sprintf("model-%d", n%3), 200
	if n%50 == 0 {
		asked = "model-asked"
	}
	if n%100 == 3 {
		status = 429
	}
	return meter.Record{ID: fmt.Sprintf("usg_bench_%09d", n), RequestID: "req", Time: now,
		AccountID: "acct_bench", KeyID: fmt.Sprintf("key_%d", n%4), Endpoint: "chat.completions",
		Model: model, RequestedModel: asked, Provider: "openai", UpstreamModel: "m", PromptTokens: 12,
		CompletionTokens: 30, TotalTokens: 42, InputPrice: 150000, OutputPrice: 600000,
		PriceVersion: "prices-bench", Cost: usd.Amount(12*150000 + 30*600000), Latency: time.Millisecond, Status: status}
}

// tenantRecords returns a maker of benchRecord's nth record in the
// traffic of 50 accounts of two keys each (key IDs are unique, as in
// api_keys), whose IDs are formatted once.
func tenantRecords() func(n int, now time.Time) meter.Record {
	var accounts [50]string
	var keys [50][2]string
	for a := range accounts {
		accounts[a] = fmt.Sprintf("acct_bench_%02d", a)
		keys[a] = [2]string{fmt.Sprintf("key_bench_%02d_0", a), fmt.Sprintf("key_bench_%02d_1", a)}
	}
	return func(n int, now time.Time) meter.Record {
		r := benchRecord(n, now)
		r.AccountID = accounts[n%50]
		r.KeyID = keys[n%50][n/50%2]
		return r
	}
}
