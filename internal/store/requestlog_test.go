package store_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// requestLedger writes 240 records of two accounts, three at each time
// (rows with equal times are where a cursor of time alone would lose or
// repeat rows), and returns them. Most ask for the model that answers
// them; every 4th asked for gpt-4o (answered by it or by another), every
// 4th for o1, which never answers, and every 8th names none (records
// from before 0006).
func requestLedger(t *testing.T, s *store.Store) []meter.Record {
	t.Helper()
	models := []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-haiku"}
	statuses := []int{200, 200, 200, 429, 200, 500, 200, 503, 400, 200, 499}
	var recs []meter.Record
	for n := range 240 {
		account, key := "acct_a", []string{"key_a1", "key_a2"}[n%2]
		if n%5 == 4 {
			account, key = "acct_b", "key_b1"
		}
		r := usageRecord(n, account, key, models[n%3], "2026-11-20", statuses[n%len(statuses)])
		r.Time = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(n/3) * time.Minute)
		switch n % 8 {
		case 1, 5:
			r.RequestedModel = "gpt-4o"
		case 3, 7:
			r.RequestedModel = "o1"
		case 0:
			r.RequestedModel = ""
		default:
			r.RequestedModel = r.Model
		}
		recs = append(recs, r)
	}
	if _, err := s.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// wantRequests filters and orders recs as the request log must, from
// q.After on.
func wantRequests(recs []meter.Record, q store.RequestQuery) []string {
	var out []meter.Record
	for _, r := range recs {
		ok := (q.AccountID == "" || r.AccountID == q.AccountID) &&
			(q.KeyID == "" || r.KeyID == q.KeyID) &&
			(q.Model == "" || r.Model == q.Model) &&
			(q.RequestedModel == "" || r.RequestedModel == q.RequestedModel) &&
			(q.StatusClass == 0 || r.Status/100 == q.StatusClass) &&
			(q.Status == 0 || r.Status == q.Status) &&
			(q.Since.IsZero() || !r.Time.Before(q.Since)) &&
			(q.Until.IsZero() || r.Time.Before(q.Until)) &&
			(q.After.IsZero() || r.Time.UnixMilli() < q.After.Time || r.Time.UnixMilli() == q.After.Time && r.ID < q.After.ID)
		if ok {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b meter.Record) int {
		return cmp.Or(b.Time.Compare(a.Time), strings.Compare(b.ID, a.ID))
	})
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.ID
	}
	return ids
}

// allPages walks the request log page by page and returns the IDs in
// the order read, and the pages' sizes.
func allPages(t *testing.T, s *store.Store, q store.RequestQuery) (ids []string, sizes []int) {
	t.Helper()
	for range 1000 {
		p, err := s.Requests(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Rows))
		for _, r := range p.Rows {
			ids = append(ids, r.ID)
		}
		if p.Next.IsZero() {
			return ids, sizes
		}
		// The cursor goes through its URL form, as the page's link.
		if q.After, err = store.ParseCursor(p.Next.String()); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("the request log does not end")
	return nil, nil
}

func TestRequestsFiltersAndPages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		recs := requestLedger(t, s)
		day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		tests := []struct {
			name string
			q    store.RequestQuery
		}{
			{"every account", store.RequestQuery{}},
			{"one account", store.RequestQuery{AccountID: "acct_a"}},
			{"the other account", store.RequestQuery{AccountID: "acct_b"}},
			{"key", store.RequestQuery{AccountID: "acct_a", KeyID: "key_a2"}},
			{"key of another account", store.RequestQuery{AccountID: "acct_a", KeyID: "key_b1"}},
			{"key across accounts", store.RequestQuery{KeyID: "key_b1"}},
			{"model answered", store.RequestQuery{AccountID: "acct_a", Model: "gpt-4o"}},
			{"model asked", store.RequestQuery{AccountID: "acct_a", RequestedModel: "o1"}},
			{"both models", store.RequestQuery{Model: "gpt-4o-mini", RequestedModel: "o1"}},
			// Asked for a model that answers: two reads merged.
			{"model asked and answering", store.RequestQuery{AccountID: "acct_a", RequestedModel: "gpt-4o"}},
			{"model asked and answering across accounts", store.RequestQuery{RequestedModel: "gpt-4o"}},
			{"model asked and answering, 5xx", store.RequestQuery{RequestedModel: "gpt-4o", StatusClass: 5}},
			{"model asked and answering, key and time", store.RequestQuery{AccountID: "acct_a", KeyID: "key_a2",
				RequestedModel: "gpt-4o", Since: day.Add(10 * time.Minute), Until: day.Add(61 * time.Minute)}},
			{"model asked, answered by it", store.RequestQuery{Model: "gpt-4o", RequestedModel: "gpt-4o"}},
			{"model asked, answered by another", store.RequestQuery{Model: "gpt-4o-mini", RequestedModel: "gpt-4o"}},
			{"2xx", store.RequestQuery{StatusClass: 2}},
			{"1xx", store.RequestQuery{StatusClass: 1}},
			{"5xx", store.RequestQuery{AccountID: "acct_a", StatusClass: 5}},
			{"4xx across accounts", store.RequestQuery{StatusClass: 4}},
			{"exact status", store.RequestQuery{AccountID: "acct_a", Status: 503}},
			{"status outside its class", store.RequestQuery{Status: 503, StatusClass: 4}},
			{"time range", store.RequestQuery{AccountID: "acct_a", Since: day.Add(10 * time.Minute), Until: day.Add(41 * time.Minute)}},
			{"everything", store.RequestQuery{AccountID: "acct_a", KeyID: "key_a1", Model: "gpt-4o", StatusClass: 2,
				Since: day.Add(5 * time.Minute), Until: day.Add(70 * time.Minute)}},
			{"nothing matches", store.RequestQuery{AccountID: "acct_none"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				want := wantRequests(recs, tt.q)
				if tt.q == (store.RequestQuery{}) && len(want) != len(recs) {
					t.Fatalf("every account: want %d rows, the reference gives %d", len(recs), len(want))
				}
				for _, limit := range []int{7, 50} {
					tt.q.Limit = limit
					got, sizes := allPages(t, s, tt.q)
					if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("limit %d: rows (-want +got):\n%s", limit, diff)
					}
					for i, n := range sizes[:len(sizes)-1] {
						if n != limit {
							t.Errorf("limit %d: page %d has %d rows", limit, i+1, n)
						}
					}
				}
			})
		}
	})
}

// modelLedger writes 600 records of six accounts (none of them in
// accounts, and one of them "": the ledger keeps records whatever their
// account), twelve at
// each time (a minute apart), and returns them. Account acct_0 has most
// rows, acct_5 uses gpt-4o only in the first 20 minutes and acct_4
// never; record IDs are not in the order of time or account, so that
// rows of the same time in different accounts are ordered by ID across
// them, and an account's newest row is often as old as the last of a
// page read from others.
func modelLedger(t *testing.T, s *store.Store) []meter.Record {
	t.Helper()
	models := []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-haiku"}
	statuses := []int{200, 200, 200, 429, 200, 500, 200, 200, 503}
	var recs []meter.Record
	for n := range 600 {
		account := fmt.Sprintf("acct_%d", []int{0, 0, 0, 1, 2, 3, 0, 1, 4, 5, 2}[n%11])
		if account == "acct_3" {
			account = ""
		}
		model := models[n%3]
		switch {
		case account == "acct_4" && model == "gpt-4o", account == "acct_5" && model == "gpt-4o" && n >= 240:
			model = "gpt-4o-mini"
		}
		r := usageRecord(n, account, "key_"+account, model, "2026-11-20", statuses[n%len(statuses)])
		r.ID = fmt.Sprintf("rec_%03d", n*7%600)
		r.Time = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(n/12) * time.Minute)
		r.RequestedModel = model
		if n%5 == 1 {
			r.RequestedModel = "gpt-4o" // answered by another model, or by it
		}
		recs = append(recs, r)
	}
	if _, err := s.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRequestsModelAcrossAccounts pages through an operator's filters on
// a model, which are read one account at a time and merged, in time
// ranges that some accounts have no rows of the model in, from the start
// and from cursors, at several page sizes, and compares every row and
// page with the records filtered and sorted here.
func TestRequestsModelAcrossAccounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		recs := modelLedger(t, s)
		at := func(minutes int) time.Time {
			return time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
		}
		filters := []store.RequestQuery{
			{Model: "gpt-4o"},
			{RequestedModel: "gpt-4o"},
			{Model: "gpt-4o", RequestedModel: "gpt-4o"},
			{Model: "gpt-4o-mini", RequestedModel: "gpt-4o"},
			{Model: "gpt-4o", StatusClass: 2},
			{Model: "claude-3-5-haiku", StatusClass: 5},
			{RequestedModel: "gpt-4o", Status: 429},
			{Model: "o1"},
		}
		ranges := []struct {
			name         string
			since, until time.Time
			after        store.Cursor
		}{
			{name: "all time"},
			{name: "since", since: at(23)},
			{name: "until", until: at(20)},
			{name: "range", since: at(4), until: at(32)},
			{name: "range without acct_5", since: at(20), until: at(43)},
			{name: "empty range", since: at(500), until: at(600)},
			{name: "cursor", after: store.Cursor{Time: at(29).UnixMilli(), ID: "rec_300"}},
			{name: "cursor in range", since: at(7), until: at(40), after: store.Cursor{Time: at(33).UnixMilli(), ID: "rec_000"}},
			{name: "cursor after range", until: at(17), after: store.Cursor{Time: at(30).UnixMilli(), ID: "rec_555"}},
		}
		nonEmpty := 0
		for _, f := range filters {
			for _, r := range ranges {
				q := f
				q.Since, q.Until, q.After = r.since, r.until, r.after
				want := wantRequests(recs, q)
				if len(want) > 0 {
					nonEmpty++
				}
				for _, limit := range []int{2, 7, 50} {
					q.Limit = limit
					got, sizes := allPages(t, s, q)
					if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("%+v, %s, limit %d: rows (-want +got):\n%s", f, r.name, limit, diff)
					}
					for i, n := range sizes[:len(sizes)-1] {
						if n != limit {
							t.Errorf("%+v, %s, limit %d: page %d has %d rows", f, r.name, limit, i+1, n)
						}
					}
				}
			}
		}
		if nonEmpty < len(filters)*len(ranges)/2 {
			t.Errorf("only %d of %d cases select rows", nonEmpty, len(filters)*len(ranges))
		}
	})
}

func TestRequestsRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		ctx := context.Background()
		acct, err := s.CreateAccount(ctx, store.NewAccount{Email: "owner@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		k, err := s.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: "ci", Hash: strings.Repeat("ab", 32), Hint: "sk-…abcd"})
		if err != nil {
			t.Fatal(err)
		}
		recs := []meter.Record{usageRecord(1, acct.ID, k.ID, "gpt-4o", "2026-11-20", 200),
			usageRecord(2, acct.ID, "key_gone", "gpt-4o", "2026-11-20", 503)}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		p, err := s.Requests(ctx, store.RequestQuery{AccountID: acct.ID})
		if err != nil {
			t.Fatal(err)
		}
		want := []store.RequestRow{{Record: recs[1]}, {Record: recs[0], KeyName: "ci"}}
		if diff := gocmp.Diff(want, p.Rows); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		if !p.Next.IsZero() {
			t.Errorf("Next = %v after the last row", p.Next)
		}
		// An operator's key filter finds the key's account; an unknown
		// key is looked for in every account.
		for _, key := range []string{k.ID, "key_gone"} {
			p, err := s.Requests(ctx, store.RequestQuery{KeyID: key})
			if err != nil || len(p.Rows) != 1 || p.Rows[0].KeyID != key {
				t.Errorf("key %s alone: %+v, %v; want its one row", key, p.Rows, err)
			}
		}
	})
}

func TestParseCursor(t *testing.T) {
	c := store.Cursor{Time: 1763600000123, ID: "usg_4hx3n7q2w9rkdm5b"}
	got, err := store.ParseCursor(c.String())
	if err != nil || got != c {
		t.Errorf("ParseCursor(%q) = %v, %v; want %v", c.String(), got, err, c)
	}
	if got, err := store.ParseCursor(""); err != nil || !got.IsZero() {
		t.Errorf(`ParseCursor("") = %v, %v; want the zero cursor`, got, err)
	}
	for _, bad := range []string{"!!", "bm90LWEtY3Vyc29y", "MTIz", "eC5pZA", "MTIzLg", "MTIzLmlkAA", "MTIzLv8"} {
		if _, err := store.ParseCursor(bad); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("ParseCursor(%q): %v, want ErrBadCursor", bad, err)
		}
	}
}
