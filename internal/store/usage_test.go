package store_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// usageRecord returns a complete record; day is "2006-01-02" (UTC), the
// time within it follows n so that records sort by n.
func usageRecord(n int, account, key, model, day string, status int) meter.Record {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	prompt, completion := int64(100+n), int64(20+n%7)
	return meter.Record{
		ID:               fmt.Sprintf("rec_%06d", n),
		RequestID:        fmt.Sprintf("req-%d", n),
		Time:             t.Add(time.Duration(n) * time.Second),
		AccountID:        account,
		KeyID:            key,
		Endpoint:         "chat.completions",
		Model:            model,
		Provider:         "mock",
		UpstreamModel:    model + "-2026",
		PromptTokens:     prompt,
		CompletionTokens: completion,
		TotalTokens:      prompt + completion,
		CachedTokens:     int64(n % 3),
		Estimated:        n%2 == 0,
		InputPrice:       2_500_000,
		OutputPrice:      10_000_000,
		PriceVersion:     "2026-05",
		Cost:             usd.Cost(prompt, 2_500_000) + usd.Cost(completion, 10_000_000),
		Latency:          time.Duration(1500+n) * time.Microsecond,
		TTFT:             time.Duration(n%2*300) * time.Microsecond,
		Status:           status,
		ErrorType:        map[bool]string{true: "server_error"}[status >= 400],
		Streamed:         n%2 == 1,
		Cancelled:        status == 499,
		RequestedModel:   map[bool]string{true: "o1"}[n%4 == 3],
		Deployment:       "mock/" + model + "-2026",
		Attempts:         1 + n%3,
	}
}

// totals sums recs as UsageSummary would for one group.
func totals(recs []meter.Record) store.UsageRow {
	var r store.UsageRow
	for _, rec := range recs {
		r.Requests++
		if rec.Status >= 400 {
			r.Errors++
		}
		r.PromptTokens += rec.PromptTokens
		r.CompletionTokens += rec.CompletionTokens
		r.TotalTokens += rec.TotalTokens
		r.Cost += rec.Cost
	}
	return r
}

// totalsByModel sums recs for each of models, in that order, as
// UsageSummary would by model.
func totalsByModel(recs []meter.Record, models []string) []store.UsageRow {
	var out []store.UsageRow
	for _, m := range models {
		var of []meter.Record
		for _, r := range recs {
			if r.Model == m {
				of = append(of, r)
			}
		}
		row := totals(of)
		row.Model = m
		out = append(out, row)
	}
	return out
}

func summary(t *testing.T, s *store.Store, q store.UsageQuery) []store.UsageRow {
	t.Helper()
	rows, err := s.UsageSummary(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestWriteUsage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		recs := []meter.Record{
			usageRecord(1, "acct_a", "key_1", "gpt-4o", "2026-05-01", 200),
			usageRecord(2, "acct_a", "key_1", "gpt-4o", "2026-05-01", 500),
			usageRecord(3, "acct_a", "key_2", "claude", "2026-05-02", 499),
			usageRecord(4, "acct_b", "key_3", "gpt-4o", "2026-05-03", 200),
		}
		tests := []struct {
			name  string
			batch []meter.Record
			want  int
		}{
			{"empty", nil, 0},
			{"new", recs[:2], 2},
			{"again", recs[:2], 0},
			{"overlapping, with an ID twice in the batch", []meter.Record{recs[3], recs[1], recs[2], recs[3]}, 2},
			{"all again", recs, 0},
		}
		for _, tt := range tests {
			n, err := s.WriteUsage(ctx, tt.batch)
			if err != nil || n != tt.want {
				t.Errorf("%s: WriteUsage = %d, %v; want %d", tt.name, n, err, tt.want)
			}
		}

		got, err := s.ListUsage(ctx, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []meter.Record{recs[3], recs[2], recs[1], recs[0]} // newest first
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ListUsage (-want +got):\n%s", diff)
		}
		if got, _ := s.ListUsage(ctx, "acct_a", 1); len(got) != 1 || got[0].ID != recs[2].ID {
			t.Errorf("ListUsage(acct_a, 1) = %+v", got)
		}
		for account, want := range map[string]int64{"": 4, "acct_a": 3, "acct_b": 1, "acct_none": 0} {
			if n, err := s.CountUsage(ctx, account); err != nil || n != want {
				t.Errorf("CountUsage(%q) = %d, %v; want %d", account, n, err, want)
			}
		}

		day1 := totals(recs[:2])
		day1.Day = "2026-05-01"
		day2 := totals(recs[2:3])
		day2.Day = "2026-05-02"
		if diff := cmp.Diff([]store.UsageRow{day1, day2}, summary(t, s, store.UsageQuery{AccountID: "acct_a", By: "day"})); diff != "" {
			t.Errorf("rollup after repeated writes (-want +got):\n%s", diff)
		}
	})
}

// TestWriteUsageConcurrently writes overlapping batches, in random order,
// from several store handles at once (as several replicas would): no
// deadlock, every record stored once, and the rollup equals the sum over
// distinct records.
func TestWriteUsageConcurrently(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		models, days := []string{"m1", "m2", "m3"}, []string{"2026-05-01", "2026-05-02"}
		var all []meter.Record
		for n := range 300 {
			all = append(all, usageRecord(n, "acct_a", fmt.Sprintf("key_%d", n%4), models[n%3], days[n%2], 200+n%3*200))
		}
		stores := []*store.Store{storetest.Open(t, b.URL), storetest.Open(t, b.URL), storetest.Open(t, b.URL)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		inserted := 0
		for w := range 6 {
			s := stores[w%len(stores)]
			wg.Go(func() {
				rnd := rand.New(rand.NewPCG(uint64(w), 1))
				for range 10 {
					batch := make([]meter.Record, 60)
					for i := range batch {
						batch[i] = all[rnd.IntN(len(all))]
					}
					n, err := s.WriteUsage(ctx, batch)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					inserted += n
					mu.Unlock()
				}
				n, err := s.WriteUsage(ctx, all) // everything, so that every record is written
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				inserted += n
				mu.Unlock()
			})
		}
		wg.Wait()
		if inserted != len(all) {
			t.Errorf("inserted %d in all, want %d", inserted, len(all))
		}
		s := stores[0]
		if n, _ := s.CountUsage(ctx, "acct_a"); n != int64(len(all)) {
			t.Errorf("CountUsage = %d, want %d", n, len(all))
		}
		want := totalsByModel(all, models)
		if diff := cmp.Diff(want, summary(t, s, store.UsageQuery{AccountID: "acct_a", By: "model"})); diff != "" {
			t.Errorf("rollup (-want +got):\n%s", diff)
		}
	})
}

func TestWriteUsageLargeBatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		recs := make([]meter.Record, 2000)
		for n := range recs {
			recs[n] = usageRecord(n, "acct_a", "key_1", "gpt-4o", "2026-05-03", 200)
		}
		if n, err := s.WriteUsage(ctx, recs); err != nil || n != 2000 {
			t.Fatalf("WriteUsage(2000) = %d, %v", n, err)
		}
		if n, err := s.WriteUsage(ctx, recs); err != nil || n != 0 {
			t.Errorf("WriteUsage(same 2000) = %d, %v; want 0", n, err)
		}
		want := totals(recs)
		want.Day = "2026-05-03"
		if diff := cmp.Diff([]store.UsageRow{want}, summary(t, s, store.UsageQuery{AccountID: "acct_a", By: "day"})); diff != "" {
			t.Errorf("rollup (-want +got):\n%s", diff)
		}
		if got, _ := s.ListUsage(ctx, "acct_a", 3); len(got) != 3 || got[0].ID != recs[1999].ID || got[2].ID != recs[1997].ID {
			t.Errorf("ListUsage newest first: %v", got)
		}
	})
}

func TestUsageSummary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		ci, _ := newKey(t, s, a.ID, "ci")
		recs := []meter.Record{
			usageRecord(1, a.ID, ci.ID, "gpt-4o", "2026-04-30", 200),
			usageRecord(2, a.ID, ci.ID, "gpt-4o", "2026-05-01", 200),
			usageRecord(3, a.ID, ci.ID, "claude", "2026-05-01", 429),
			usageRecord(4, a.ID, "key_0gone", "gpt-4o", "2026-05-02", 200),
			usageRecord(5, "acct_other", "key_x", "gpt-4o", "2026-05-01", 200),
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		may1, may2 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 2, 23, 0, 0, 0, time.UTC)
		row := func(set func(*store.UsageRow), rs ...meter.Record) store.UsageRow {
			r := totals(rs)
			set(&r)
			return r
		}
		tests := []struct {
			name string
			q    store.UsageQuery
			want []store.UsageRow
		}{
			{"by day, open", store.UsageQuery{AccountID: a.ID, By: "day"}, []store.UsageRow{
				row(func(r *store.UsageRow) { r.Day = "2026-04-30" }, recs[0]),
				row(func(r *store.UsageRow) { r.Day = "2026-05-01" }, recs[1], recs[2]),
				row(func(r *store.UsageRow) { r.Day = "2026-05-02" }, recs[3]),
			}},
			{"by day, one day", store.UsageQuery{AccountID: a.ID, By: "day", Since: may1, Until: may1}, []store.UsageRow{
				row(func(r *store.UsageRow) { r.Day = "2026-05-01" }, recs[1], recs[2]),
			}},
			{"by model, since", store.UsageQuery{AccountID: a.ID, By: "model", Since: may1}, []store.UsageRow{
				row(func(r *store.UsageRow) { r.Model = "claude" }, recs[2]),
				row(func(r *store.UsageRow) { r.Model = "gpt-4o" }, recs[1], recs[3]),
			}},
			{"by key, until", store.UsageQuery{AccountID: a.ID, By: "key", Until: may2}, []store.UsageRow{
				row(func(r *store.UsageRow) { r.KeyID = "key_0gone" }, recs[3]), // sorts before every generated ID
				row(func(r *store.UsageRow) { r.KeyID, r.KeyName = ci.ID, "ci" }, recs[0], recs[1], recs[2]),
			}},
			{"empty range", store.UsageQuery{AccountID: a.ID, By: "day", Since: may2, Until: may1}, nil},
			{"unknown account", store.UsageQuery{AccountID: "acct_nope", By: "model"}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, summary(t, s, tt.q)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
		for _, by := range []string{"", "month", "KEY", "day; DROP TABLE usage_daily"} {
			if _, err := s.UsageSummary(ctx, store.UsageQuery{AccountID: a.ID, By: by}); err == nil || !strings.Contains(err.Error(), "grouping") {
				t.Errorf("By %q: err = %v, want an unknown grouping error", by, err)
			}
		}
	})
}

func TestMonthSpend(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		recs := []meter.Record{
			usageRecord(1, "acct_a", "key_1", "m", "2026-04-30", 200),
			usageRecord(2, "acct_a", "key_1", "m", "2026-05-01", 200),
			usageRecord(3, "acct_a", "key_2", "m", "2026-05-31", 500),
			usageRecord(4, "acct_a", "key_1", "m", "2026-06-01", 200),
			usageRecord(5, "acct_b", "key_9", "m", "2026-05-15", 200),
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			account, key, period string
			wantAccount, wantKey usd.Amount
		}{
			{"acct_a", "", "2026-05", recs[1].Cost + recs[2].Cost, 0},
			{"acct_a", "key_1", "2026-05", recs[1].Cost + recs[2].Cost, recs[1].Cost},
			{"acct_a", "key_2", "2026-05", recs[1].Cost + recs[2].Cost, recs[2].Cost},
			{"acct_a", "key_1", "2026-04", recs[0].Cost, recs[0].Cost},
			{"acct_a", "key_9", "2026-06", recs[3].Cost, 0},
			{"acct_b", "key_9", "2026-05", recs[4].Cost, recs[4].Cost},
			{"acct_a", "key_1", "2025-05", 0, 0},
			{"acct_none", "", "2026-05", 0, 0},
		}
		for _, tt := range tests {
			a, k, err := s.MonthSpend(ctx, tt.account, tt.key, tt.period)
			if err != nil || a != tt.wantAccount || k != tt.wantKey {
				t.Errorf("MonthSpend(%s, %q, %s) = %v, %v, %v; want %v, %v", tt.account, tt.key, tt.period, a, k, err, tt.wantAccount, tt.wantKey)
			}
		}
		for _, period := range []string{"", "2026-5", "2026-13", "2026-05-01", "May 2026", "2026-05 "} {
			if _, _, err := s.MonthSpend(ctx, "acct_a", "", period); err == nil {
				t.Errorf("MonthSpend with period %q succeeded", period)
			}
			if _, err := s.SpendByAccount(ctx, period); err == nil {
				t.Errorf("SpendByAccount with period %q succeeded", period)
			}
		}
		byAccount, err := s.SpendByAccount(ctx, "2026-05")
		want := map[string]usd.Amount{"acct_a": recs[1].Cost + recs[2].Cost, "acct_b": recs[4].Cost}
		if err != nil || !maps.Equal(byAccount, want) {
			t.Errorf("SpendByAccount(2026-05) = %v, %v; want %v", byAccount, err, want)
		}
		if none, err := s.SpendByAccount(ctx, "2025-05"); err != nil || len(none) != 0 {
			t.Errorf("SpendByAccount(2025-05) = %v, %v; want none", none, err)
		}
	})
}
