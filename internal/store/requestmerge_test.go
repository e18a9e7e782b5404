package store_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// TestMergeNewest merges the reads of a CSV export's page of an
// operator's model filter, 1,000 rows and one more from 300 accounts,
// most of whose reads are empty, and checks the rows and that the merge
// allocates its buffers a few times for the page, not once for each
// read.
func TestMergeNewest(t *testing.T) {
	const limit = 1001
	base := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	rec := func(account, n int) meter.Record {
		// Pairs of rows share a time, so IDs order them too.
		return meter.Record{ID: fmt.Sprintf("rec_%03d_%04d", account, n), Time: base.Add(time.Duration(n/2) * time.Second)}
	}
	reads := make([][]meter.Record, 300)
	var all []meter.Record
	for a := range reads {
		if a%10 != 0 {
			continue // an account with no row newer than the page's last
		}
		for n := 2000 - a; n > 0; n -= 7 {
			reads[a] = append(reads[a], rec(a, n))
		}
		reads[a] = reads[a][:min(len(reads[a]), limit)]
		all = append(all, reads[a]...)
	}
	slices.SortFunc(all, func(a, b meter.Record) int {
		return cmp.Or(b.Time.Compare(a.Time), cmp.Compare(b.ID, a.ID))
	})
	got := store.MergeNewestForTest(reads, limit)
	if !slices.EqualFunc(got, all[:limit], func(a, b meter.Record) bool { return a.ID == b.ID }) {
		t.Errorf("merged %d rows, not the newest %d of %d", len(got), limit, len(all))
	}
	allocs := testing.AllocsPerRun(10, func() { store.MergeNewestForTest(reads, limit) })
	// Two buffers, each grown by doubling up to the limit: a few
	// allocations however many reads (one a read was 300).
	if allocs > 8 {
		t.Errorf("%v allocations merging %d reads; want at most 8", allocs, len(reads))
	}
}
