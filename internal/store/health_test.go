package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// healthStart is the start of the window of the health tests.
var healthStart = time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)

// healthRecord is a record of account at healthStart + at, answered with
// status after latency.
func healthRecord(n int, account, model string, at, latency time.Duration, status int) meter.Record {
	r := usageRecord(n, account, "key_"+account, model, "2026-11-21", status)
	r.Time, r.Latency = healthStart.Add(at), latency
	return r
}

// healthFixture writes, for account "a", 100 answered requests of
// "fast" at 1 to 100 ms across the first two hours of the window, one
// slow answer of "slow" and errors of each (which have no latency to
// count); for account "b", requests of its own model; and records of
// "a" just outside the window.
func healthFixture(t *testing.T, s *store.Store) {
	t.Helper()
	var recs []meter.Record
	for i := range 100 {
		at := time.Duration(i) * 72 * time.Second // 50 in the first hour, 50 in the second
		recs = append(recs, healthRecord(i, "a", "fast", at, time.Duration(i+1)*time.Millisecond, 200))
	}
	recs = append(recs,
		healthRecord(100, "a", "slow", 90*time.Minute, 1234567*time.Microsecond, 200),
		healthRecord(101, "a", "slow", 90*time.Minute, time.Millisecond, 502),
		healthRecord(102, "a", "fast", 3*time.Hour, 0, 429),
		healthRecord(103, "a", "fast", -time.Millisecond, time.Millisecond, 200),
		healthRecord(104, "a", "fast", 24*time.Hour, time.Millisecond, 200),
		healthRecord(105, "b", "theirs", 25*time.Minute, 7*time.Microsecond, 200),
		healthRecord(106, "b", "theirs", 23*time.Hour+59*time.Minute, 12*time.Microsecond, 500),
	)
	if _, err := s.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

func TestRequestsPerHour(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		healthFixture(t, s)
		hour := func(h int) time.Time { return healthStart.Add(time.Duration(h) * time.Hour) }
		tests := []struct {
			account string
			want    []store.HourRow
		}{
			{"a", []store.HourRow{{hour(0), 50, 0}, {hour(1), 52, 1}, {hour(3), 1, 1}}},
			{"b", []store.HourRow{{hour(0), 1, 0}, {hour(23), 1, 1}}},
			{"", []store.HourRow{{hour(0), 51, 0}, {hour(1), 52, 1}, {hour(3), 1, 1}, {hour(23), 1, 1}}},
			{"nobody", nil},
		}
		for _, tt := range tests {
			q := store.HealthQuery{AccountID: tt.account, Since: healthStart, Until: healthStart.Add(24 * time.Hour)}
			got, err := s.RequestsPerHour(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("account %q: requests per hour (-want +got):\n%s", tt.account, diff)
			}
		}
	})
}

func TestLatencyPercentiles(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		healthFixture(t, s)
		tests := []struct {
			account, by string
			want        []store.LatencyRow
		}{
			// 1 to 100 ms: the 50th is 50 ms and the 95th 95 ms; 1,234,567 µs
			// rounds down to 1.2 s. Errors count for neither.
			{"a", "model", []store.LatencyRow{
				{Name: "fast", Requests: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond},
				{Name: "slow", Requests: 1, P50: 1200 * time.Millisecond, P95: 1200 * time.Millisecond},
			}},
			{"a", "deployment", []store.LatencyRow{
				{Name: "mock/fast-2026", Requests: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond},
				{Name: "mock/slow-2026", Requests: 1, P50: 1200 * time.Millisecond, P95: 1200 * time.Millisecond},
			}},
			{"b", "model", []store.LatencyRow{{Name: "theirs", Requests: 1, P50: 7 * time.Microsecond, P95: 7 * time.Microsecond}}},
			{"", "model", []store.LatencyRow{
				{Name: "fast", Requests: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond},
				{Name: "slow", Requests: 1, P50: 1200 * time.Millisecond, P95: 1200 * time.Millisecond},
				{Name: "theirs", Requests: 1, P50: 7 * time.Microsecond, P95: 7 * time.Microsecond},
			}},
			{"nobody", "model", nil},
		}
		for _, tt := range tests {
			q := store.HealthQuery{AccountID: tt.account, Since: healthStart, Until: healthStart.Add(24 * time.Hour)}
			got, err := s.LatencyPercentiles(context.Background(), q, tt.by)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("account %q by %s: latency (-want +got):\n%s", tt.account, tt.by, diff)
			}
		}
		if _, err := s.LatencyPercentiles(context.Background(), store.HealthQuery{}, "key"); err == nil || !strings.Contains(err.Error(), `"key"`) {
			t.Errorf("grouping by key: err %v, want one naming the grouping", err)
		}
	})
}

// TestLatencyPercentilesRounding checks the histogram's buckets at the
// edges of a decade: each latency comes back rounded down to two
// significant digits.
func TestLatencyPercentilesRounding(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		tests := []struct{ latency, want time.Duration }{
			{0, 0}, {9 * time.Microsecond, 9 * time.Microsecond}, {99 * time.Microsecond, 99 * time.Microsecond},
			{100 * time.Microsecond, 100 * time.Microsecond}, {109 * time.Microsecond, 100 * time.Microsecond},
			{999 * time.Microsecond, 990 * time.Microsecond}, {119999 * time.Millisecond, 110 * time.Second},
		}
		var recs []meter.Record
		for i, tt := range tests {
			recs = append(recs, healthRecord(i, "a", fmt.Sprintf("m%02d", i), time.Minute, tt.latency, 200))
		}
		if _, err := s.WriteUsage(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		got, err := s.LatencyPercentiles(context.Background(),
			store.HealthQuery{AccountID: "a", Since: healthStart, Until: healthStart.Add(time.Hour)}, "model")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tests) {
			t.Fatalf("%d rows, want %d: %+v", len(got), len(tests), got)
		}
		for _, r := range got {
			var i int
			fmt.Sscanf(r.Name, "m%d", &i)
			if r.P50 != tests[i].want || r.P95 != tests[i].want {
				t.Errorf("latency %v: p50 %v, p95 %v, want %v", tests[i].latency, r.P50, r.P95, tests[i].want)
			}
		}
	})
}

// TestHealthQueriesUseTheIndex checks that SQLite reads the records of
// the window through the index on (account_id, created_at), for one
// account and for every account, instead of scanning the ledger.
func TestHealthQueriesUseTheIndex(t *testing.T) {
	s := storetest.Open(t, storetest.SQLiteURL(t))
	for _, account := range []string{"a", ""} {
		perHour, latency, args := store.HealthSQLForTest(s, store.HealthQuery{AccountID: account, Since: healthStart, Until: healthStart.Add(time.Hour)})
		for _, q := range []string{perHour, latency} {
			plan, err := store.ExplainForTest(context.Background(), s, q, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "usage_records USING INDEX usage_records_account_time (account_id=? AND created_at>? AND created_at<?)") {
				t.Errorf("account %q: the plan does not seek the index:\n%s\nof\n%s", account, plan, q)
			}
		}
	}
}
