package store_test

import (
	"context"
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// skipLedger writes 1,200 records of 60 accounts, a second apart in turn
// (so every page of an operator's model filter has rows of several
// accounts, and no two rows the same time), and returns them. All ask
// for gpt-4o; every 4th of each account is answered by o1, the
// others by gpt-4o.
// Statuses are 200, except two 503s of gpt-4o in each of acct_07,
// acct_23 and acct_41, and 500s of o1, asked for o1, in acct_50.
func skipLedger(t *testing.T, s *store.Store) []meter.Record {
	t.Helper()
	var recs []meter.Record
	for n := range 1200 {
		account := fmt.Sprintf("acct_%02d", n%60)
		r := usageRecord(n, account, "key_"+account, "gpt-4o", "2026-11-20", 200)
		r.RequestedModel = "gpt-4o"
		switch {
		case (n%60 == 7 || n%60 == 23 || n%60 == 41) && (n/60)%9 == 2:
			r.Status = 503
		case n%60 == 50 && (n/60)%5 == 0:
			r.Model, r.RequestedModel, r.Status = "o1", "o1", 500
		case n%4 == (n/60)%4:
			r.Model = "o1"
		}
		recs = append(recs, r)
	}
	if _, err := s.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRequestsModelSkipsAccounts checks that an operator's filter on a
// model, read one account at a time, skips the accounts whose rows
// cannot reach the page: with 60 accounts that used the model and pages
// of 5, each page reads at most the 6 accounts with the newest rows
// (the page and one more row), one more read for the model asked; with
// an error status, only the accounts that have rows of that status
// class. It pages through each filter and checks every page's rows.
func TestRequestsModelSkipsAccounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		recs := skipLedger(t, s)
		tests := []struct {
			q        store.RequestQuery
			maxReads int
		}{
			{store.RequestQuery{Model: "gpt-4o"}, 6},
			{store.RequestQuery{RequestedModel: "gpt-4o"}, 6 + 1},
			// The accounts of the model are looked up whatever their
			// rows' status (2xx has no index), so an account whose
			// newest row of the model is a 503 may be read as well.
			{store.RequestQuery{Model: "gpt-4o", StatusClass: 2}, 6 + 3},
			// acct_07, acct_23 and acct_41; acct_50's 5xx rows are of o1.
			{store.RequestQuery{Model: "gpt-4o", StatusClass: 5}, 4},
			{store.RequestQuery{Model: "gpt-4o", Status: 503}, 4},
			{store.RequestQuery{RequestedModel: "gpt-4o", StatusClass: 5}, 4 + 1},
			{store.RequestQuery{Model: "gpt-4o", StatusClass: 4}, 0},
		}
		for _, tt := range tests {
			q := tt.q
			q.Limit = 5
			var got []string
			for page := 1; ; page++ {
				rows, reads, err := store.RequestReadsForTest(context.Background(), s, q)
				if err != nil {
					t.Fatal(err)
				}
				if reads > tt.maxReads {
					t.Errorf("%+v, page %d: %d reads, want at most %d", tt.q, page, reads, tt.maxReads)
				}
				got = append(got, rows...)
				if len(rows) < q.Limit || page == 300 {
					break
				}
				last := recs[0]
				for _, r := range recs {
					if r.ID == rows[len(rows)-1] {
						last = r
					}
				}
				q.After = store.Cursor{Time: last.Time.UnixMilli(), ID: last.ID}
			}
			want := wantRequests(recs, tt.q)
			if len(want) == 0 && tt.maxReads > 0 {
				t.Errorf("%+v: selects no row", tt.q)
			}
			if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%+v: rows (-want +got):\n%s", tt.q, diff)
			}
		}
	})
}
