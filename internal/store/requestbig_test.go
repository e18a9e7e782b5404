package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// bigTableEnv runs TestRequestsLargeTable: SWITCHYARD_BIG_TABLE=1 for
// 10 million rows, or a number of rows.
const bigTableEnv = "SWITCHYARD_BIG_TABLE"

// TestRequestsLargeTable fills the ledger with 10 million rows and times
// the first page and a page from the middle (a cursor at the median row)
// of the Requests page's filters, as the planner of each engine chooses,
// statistics gathered. It prints a table for docs/BENCHMARKS.md. It is
// skipped unless SWITCHYARD_BIG_TABLE is set (it takes minutes and
// gigabytes); TestRequestsPlans is the check that always runs.
func TestRequestsLargeTable(t *testing.T) {
	rows := bigTableRows(t)
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		start := time.Now()
		fillIndexedLater(t, s, rows)
		t.Logf("%s: %d rows filled and indexed in %v", b.Name, rows, time.Since(start).Round(time.Second))
		mid := rows / 2
		deep := store.Cursor{Time: fillTime(mid).UnixMilli(), ID: fmt.Sprintf("rec_%010d", mid)}
		var out strings.Builder
		fmt.Fprintf(&out, "\n| filters (%s, %d rows) | rows | first page | page at the middle |\n|---|---:|---:|---:|\n", b.Name, rows)
		for _, c := range bigCases(rows) {
			first, n := timePage(t, s, c.q)
			c.q.After = deep
			later, _ := timePage(t, s, c.q)
			fmt.Fprintf(&out, "| %s | %d | %s | %s |\n", c.name, n, first, later)
		}
		t.Log(out.String())
	})
}

// bigTableRows reads SWITCHYARD_BIG_TABLE, or skips.
func bigTableRows(t *testing.T) int64 {
	v := os.Getenv(bigTableEnv)
	if v == "" {
		t.Skipf("%s not set: the 10-million-row test is skipped", bigTableEnv)
	}
	if v == "1" {
		return 10_000_000
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1000 {
		t.Fatalf("%s=%q: want 1 or a number of rows of at least 1000", bigTableEnv, v)
	}
	return n
}

// bigCases are the filters timed: each alone, within one account (1 in
// 10 rows) and across all, and pairs of them.
func bigCases(rows int64) []planCase {
	var out []planCase
	for _, account := range []string{"acct_3", ""} {
		for _, set := range [][]planFilter{nil, {planFilters[0]}, {planFilters[1]}, {planFilters[2]},
			{planFilters[3]}, {planFilters[4]}, {planFilters[5]}, {planFilters[0], planFilters[4]}, {planFilters[1], planFilters[3]},
			{planFilters[2], planFilters[3]}} {
			out = append(out, newPlanCase(account, set, false, false))
		}
		c := newPlanCase(account, nil, true, false)
		c.q.Since, c.q.Until = fillTime(rows/4), fillTime(rows*3/4)
		out = append(out, c)
	}
	return out
}

// timePage runs q three times and returns the best time and the rows of
// the page.
func timePage(t *testing.T, s *store.Store, q store.RequestQuery) (time.Duration, int) {
	t.Helper()
	best, n := time.Duration(1<<62), 0
	for range 3 {
		start := time.Now()
		p, err := s.Requests(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		best, n = min(best, time.Since(start)), len(p.Rows)
	}
	return best.Round(10 * time.Microsecond), n
}

// fillIndexedLater fills the ledger as fillLedger does, with the
// secondary indexes of usage_records dropped during the fill and built
// again after it from the database's own definitions (those of the
// migrations): building an index from a full table is far faster than
// growing it row by row.
func fillIndexedLater(t *testing.T, s *store.Store, rows int64) {
	t.Helper()
	ctx := context.Background()
	indexes, err := store.IndexesForTest(ctx, s, "usage_records")
	if err != nil {
		t.Fatal(err)
	}
	if len(indexes) == 0 {
		t.Fatal("usage_records has no secondary index")
	}
	for name := range indexes {
		if _, err := store.ExecForTest(ctx, s, "DROP INDEX "+name); err != nil {
			t.Fatal(err)
		}
	}
	fillLedger(t, s, rows)
	for _, c := range indexes {
		if _, err := store.ExecForTest(ctx, s, c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	if _, err := store.ExecForTest(ctx, s, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}
