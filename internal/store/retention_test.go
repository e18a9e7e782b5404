package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestPurgeUsage deletes old records in batches of at most the limit,
// oldest first, keeps the recent ones and leaves the daily rollup whole.
func TestPurgeUsage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		cutoff := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		var recs []meter.Record
		for n := range 11 {
			r := usageRecord(n, "acct_a", "key_a", "gpt-4o", "2026-10-20", 200)
			r.Time = cutoff.Add(-time.Duration(11-n) * time.Hour) // oldest first
			recs = append(recs, r)
		}
		recent := usageRecord(20, "acct_a", "key_a", "gpt-4o", "2026-11-01", 200)
		recent.Time = cutoff // not before it: kept
		recs = append(recs, recent)
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		q := store.UsageQuery{AccountID: "acct_a", By: "day"}
		before, err := s.UsageSummary(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for range 10 {
			n, err := s.PurgeUsage(ctx, cutoff, 4)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
			left, err := s.ListUsage(ctx, "acct_a", 100)
			if err != nil {
				t.Fatal(err)
			}
			// The oldest go first: what is left is the newest.
			if want := recs[len(recs)-len(left):]; left[len(left)-1].ID != want[0].ID {
				t.Errorf("after %v: oldest left is %s, want %s", got, left[len(left)-1].ID, want[0].ID)
			}
			if n == 0 {
				break
			}
		}
		if diff := cmp.Diff([]int{4, 4, 3, 0}, got); diff != "" {
			t.Errorf("batches (-want +got):\n%s", diff)
		}
		left, err := s.ListUsage(ctx, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 1 || left[0].ID != recent.ID {
			t.Errorf("left %d records, want only %s", len(left), recent.ID)
		}
		after, err := s.UsageSummary(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("daily rollup changed (-before +after):\n%s", diff)
		}
		if _, err := s.PurgeUsage(ctx, cutoff, 0); err == nil {
			t.Error("PurgeUsage with limit 0: no error")
		}
	})
}
