package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestWriteUsageRepeatedBatches writes batches larger than one statement
// chunk again, overlapping, and with a repeated ID, across accounts, keys,
// models and UTC day boundaries (one before 1970): every record is stored
// once and the rollup equals the sums over the distinct records.
func TestWriteUsageRepeatedBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		all := repeatRecords(1500)
		first, second := all[:1000], all[600:]
		tests := []struct {
			name  string
			batch []meter.Record
			want  int
		}{
			{"first", first, 1000},
			{"first again", first, 0},
			{"overlapping the first", second, 500},
			{"overlapping again, one ID twice", append(slices.Clone(second), all[1499], all[0]), 0},
			{"everything", all, 0},
		}
		for _, tt := range tests {
			if n, err := s.WriteUsage(ctx, tt.batch); err != nil || n != tt.want {
				t.Errorf("%s: WriteUsage = %d, %v; want %d", tt.name, n, err, tt.want)
			}
		}
		for _, account := range []string{"acct_a", "acct_b"} {
			if n, err := s.CountUsage(ctx, account); err != nil || n != int64(len(all)/2) {
				t.Errorf("CountUsage(%s) = %d, %v; want %d", account, n, err, len(all)/2)
			}
			for _, by := range []string{"day", "model", "key"} {
				want := expectedSummary(all, account, by)
				got := summary(t, s, store.UsageQuery{AccountID: account, By: by})
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("rollup of %s by %s (-want +got):\n%s", account, by, diff)
				}
			}
		}
	})
}

// repeatRecords returns n records with distinct IDs over two accounts,
// three models, five keys, mixed statuses and four UTC days, some of them
// at the last or first millisecond of a day.
func repeatRecords(n int) []meter.Record {
	models := []string{"gpt-4o", "claude", "o1"}
	days := []string{"1969-12-31", "2026-05-01", "2026-05-02", "2026-05-03"}
	out := make([]meter.Record, n)
	for i := range out {
		r := usageRecord(i, []string{"acct_a", "acct_b"}[i%2], fmt.Sprintf("key_%d", i%5),
			models[i%3], days[i%4], []int{200, 200, 429, 500, 499}[i%5])
		switch i % 7 {
		case 0: // the day's last millisecond
			r.Time = r.Time.Truncate(24 * time.Hour).Add(24*time.Hour - time.Millisecond)
		case 1: // the day's first
			r.Time = r.Time.Truncate(24 * time.Hour)
		}
		out[i] = r
	}
	return out
}

// expectedSummary sums recs of account as UsageSummary groups them by by.
func expectedSummary(recs []meter.Record, account, by string) []store.UsageRow {
	groups := map[string][]meter.Record{}
	for _, r := range recs {
		if r.AccountID != account {
			continue
		}
		k := map[string]string{"day": r.Time.UTC().Format(time.DateOnly), "model": r.Model, "key": r.KeyID}[by]
		groups[k] = append(groups[k], r)
	}
	var out []store.UsageRow
	for k, rs := range groups {
		row := totals(rs)
		switch by {
		case "day":
			row.Day = k
		case "model":
			row.Model = k
		case "key":
			row.KeyID = k
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b store.UsageRow) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Model, b.Model), cmp.Compare(a.KeyID, b.KeyID))
	})
	return out
}

// TestWriteUsageBatchSizes writes batches whose sizes leave every
// remainder of the SQLite writer's statements (32 rows, then 16, 8, 4, 2
// and 1), after some of their records were stored: every third one, and
// a run that covers whole statements. Exactly the new records are
// counted, stored with every value intact, and rolled up; the batch
// written again adds nothing.
func TestWriteUsageBatchSizes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		next := 0
		for _, size := range []int{1, 31, 33, 63, 500, 517} {
			account := fmt.Sprintf("acct_%d", size)
			recs := make([]meter.Record, size)
			var stored []meter.Record
			for i := range recs {
				recs[i] = usageRecord(next, account, fmt.Sprintf("key_%d", i%5), []string{"gpt-4o", "claude", "o1"}[i%3],
					[]string{"2026-05-01", "2026-05-02"}[i%2], []int{200, 200, 429, 500, 499}[i%5])
				next++
				if i%3 == 1 || i >= 32 && i < 96 {
					stored = append(stored, recs[i])
				}
			}
			if n, err := s.WriteUsage(ctx, stored); err != nil || n != len(stored) {
				t.Fatalf("%d: WriteUsage(%d stored before) = %d, %v", size, len(stored), n, err)
			}
			if n, err := s.WriteUsage(ctx, recs); err != nil || n != size-len(stored) {
				t.Errorf("%d: WriteUsage = %d, %v; want %d", size, n, err, size-len(stored))
			}
			if n, err := s.WriteUsage(ctx, recs); err != nil || n != 0 {
				t.Errorf("%d: WriteUsage again = %d, %v; want 0", size, n, err)
			}
			got, err := s.ListUsage(ctx, account, size+1)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, func(a, b meter.Record) int { return cmp.Compare(a.ID, b.ID) })
			if diff := gocmp.Diff(recs, got); diff != "" {
				t.Errorf("%d: stored records (-want +got):\n%s", size, diff)
			}
			for _, by := range []string{"day", "model", "key"} {
				want := expectedSummary(recs, account, by)
				if diff := gocmp.Diff(want, summary(t, s, store.UsageQuery{AccountID: account, By: by})); diff != "" {
					t.Errorf("%d: rollup by %s (-want +got):\n%s", size, by, diff)
				}
			}
		}
	})
}
