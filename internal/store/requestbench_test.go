package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// BenchmarkRequestsModelAccounts reads the first page of an operator's
// filter on a model, which is read one account at a time, from a ledger
// of 20,000 records of gpt-4o shared in turn by 10, 100 or 1,000
// accounts (so the newest rows are of as many accounts as a page can
// hold): a page of the dashboard (50 rows) and one of a CSV export
// (1,000). It reports the reads a page runs after the lookup of
// accounts, one per account read.
func BenchmarkRequestsModelAccounts(b *testing.B) {
	for _, accounts := range []int{10, 100, 1000} {
		for _, be := range storetest.Backends(b) {
			s := storetest.Open(b, be.URL)
			writeTurns(b, s, accounts, 20_000)
			for _, limit := range []int{store.DefaultRequestsLimit, store.MaxRequestsLimit} {
				b.Run(fmt.Sprintf("accounts=%d/%s/limit=%d", accounts, be.Name, limit), func(b *testing.B) {
					benchRequests(b, s, store.RequestQuery{Model: "gpt-4o", Limit: limit})
				})
			}
		}
	}
}

// writeTurns writes n records of gpt-4o, a millisecond apart, of
// accounts acct_0000 on in turn.
func writeTurns(b *testing.B, s *store.Store, accounts, n int) {
	b.Helper()
	recs := make([]meter.Record, 0, 5000)
	for i := range n {
		account := fmt.Sprintf("acct_%04d", i%accounts)
		r := usageRecord(i, account, "key_"+account, "gpt-4o", "2026-11-20", 200)
		r.Time = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)
		if recs = append(recs, r); len(recs) == cap(recs) || i == n-1 {
			if _, err := s.WriteUsage(context.Background(), recs); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
}

// benchRequests reads the first page of q a loop and reports the reads
// of a page.
func benchRequests(b *testing.B, s *store.Store, q store.RequestQuery) {
	ctx := context.Background()
	_, reads, err := store.RequestReadsForTest(ctx, s, q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Requests(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reads), "reads/page")
}
