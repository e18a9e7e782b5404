package store_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// planCase is one filter combination the dashboard's Requests page
// offers, with the indexes that may drive it (either one when two
// filters have indexes of the same length).
type planCase struct {
	name    string
	q       store.RequestQuery
	indexes []string // usage_records_<index>
}

// planFilter is one filter of the page and the indexes that can drive it
// within an account (across accounts: the same without "account_",
// except the model index, dropped across accounts by migration 0010:
// a model is read one account at a time there). The model asked is two
// reads (see RequestQuery.reads): answered by it through the account's
// model index, answered by another through the partial index of the
// model asked. A 2xx status, the common case, has no index (migration
// 0009): the account's or the time index, filtering.
type planFilter struct {
	name    string
	indexes []string
	set     func(*store.RequestQuery)
}

var planFilters = []planFilter{
	{"key", []string{"key_time"}, func(q *store.RequestQuery) { q.KeyID = "key_3" }},
	{"model", []string{"account_model"}, func(q *store.RequestQuery) { q.Model = "model-2" }},
	{"asked", []string{"account_asked", "account_model"}, func(q *store.RequestQuery) { q.RequestedModel = "model-asked" }},
	{"class", []string{"account_status"}, func(q *store.RequestQuery) { q.StatusClass = 5 }},
	{"status", []string{"account_status"}, func(q *store.RequestQuery) { q.Status = 429 }},
	{"ok", []string{"account_time"}, func(q *store.RequestQuery) { q.StatusClass = 2 }},
}

// statusFilter reports whether f filters the status (the page has one
// status field).
func statusFilter(f planFilter) bool {
	return f.name == "class" || f.name == "status" || f.name == "ok"
}

// planCases returns every combination of: one account or all (an
// operator), none or up to two of key, model answered, model asked and
// status (a class or an exact one), with and without a time range, on
// the first page and on a later one.
func planCases() []planCase {
	sets := [][]planFilter{nil}
	for i, a := range planFilters {
		sets = append(sets, []planFilter{a})
		for _, b := range planFilters[i+1:] {
			if statusFilter(a) && statusFilter(b) {
				continue
			}
			sets = append(sets, []planFilter{a, b})
		}
	}
	var out []planCase
	for _, account := range []string{"acct_3", ""} {
		for _, set := range sets {
			for _, timed := range []bool{false, true} {
				for _, later := range []bool{false, true} {
					out = append(out, newPlanCase(account, set, timed, later))
				}
			}
		}
	}
	return out
}

// newPlanCase builds one case of planCases. Any filter's index may
// drive the plan (the planner picks the most selective by its
// statistics): the key's, or the other filters' within the account or,
// for all accounts, across them, and also within each account for a
// model read one account at a time; with none, the account's or the
// time index.
func newPlanCase(account string, set []planFilter, timed, later bool) planCase {
	c := planCase{q: store.RequestQuery{AccountID: account}}
	names := []string{"all"}
	if account != "" {
		names = []string{"account"}
	}
	for _, f := range set {
		f.set(&c.q)
		names = append(names, f.name)
	}
	for _, f := range set {
		for _, index := range f.indexes {
			if store.PerAccountForTest(c.q) {
				c.indexes = append(c.indexes, index)
			}
			if account == "" && index == "account_model" {
				continue
			}
			if account == "" {
				index = strings.TrimPrefix(index, "account_")
			}
			c.indexes = append(c.indexes, index)
		}
	}
	if c.indexes == nil {
		c.indexes = []string{map[bool]string{true: "account_time", false: "time"}[account != ""]}
	}
	if timed {
		c.q.Since, c.q.Until = fillTime(2000), fillTime(18000)
		names = append(names, "time")
	}
	if later {
		c.q.After = store.Cursor{Time: fillTime(9000).UnixMilli(), ID: "rec_0000009000"}
		names = append(names, "cursor")
	}
	c.name = strings.Join(names, "+")
	return c
}

// badStep matches a plan step that reads the whole table or sorts.
var badStep = regexp.MustCompile(`(?i)^(SCAN usage_records$|.*TEMP B-TREE|.*Seq Scan|.*Sort|.*Bitmap)`)

// TestRequestsPlans checks that every filter combination of the Requests
// page can read usage_records through an index in its order: no scan of
// the table, no sort. The plan, not a timing, is what holds at 10 million
// rows. SQLite plans so by itself, here with the statistics of ANALYZE;
// PostgreSQL would rather sort the few rows a filter selects in a
// moderate table, so it plans with sorts and other scans disabled, which
// still sorts or scans when no index can serve (TestRequestsLargeTable
// times its own choices at 10 million rows). Each account's share of a
// read per account is planned as it is read first and as it is read
// once a page of rows is merged, which bounds it below by the oldest of
// them. An operator's filter on a model (the model that answered, or
// the model asked alone for its rows that it answered) reads each of
// the ten accounts (all of which have rows of model-2 and of model-asked
// in every case's range), or with an error status those that have rows
// of its class, after a lookup of the accounts that neither scans nor
// sorts either.
func TestRequestsPlans(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL)
		fillLedger(t, s, 20000)
		answerAsked(t, s)
		cases := planCases()
		if len(cases) < 40 {
			t.Fatalf("only %d plan cases", len(cases))
		}
		// Rows newer than row 3000, within every case's time range and
		// before its cursor.
		floor := store.Cursor{Time: fillTime(3000).UnixMilli(), ID: "rec_0000003000"}
		split, asked := 0, 0
		for _, c := range cases {
			lookups, reads, shares, err := store.ExplainRequestsForTest(context.Background(), s, c.q, floor, true)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if store.PerAccountForTest(c.q) {
				split++
				if c.q.Model == "" {
					asked++
				}
				checkAccountReads(t, c, lookups, reads, shares)
			}
			for _, plan := range slices.Concat(lookups, reads, shares) {
				checkPlan(t, b.Name, c, plan)
			}
		}
		if split == 0 || asked == 0 {
			t.Errorf("%d cases read a model one account at a time, %d of them the model asked alone", split, asked)
		}
	})
}

// answerAsked has model-asked answer every other row that asked for it
// (every 100th of the synthetic ledger, rows of every account), so that
// the reads per account of an operator's filter on the model asked
// alone, its rows that it answered, have accounts to read. It refreshes
// the planner's statistics.
func answerAsked(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := store.ExecForTest(ctx, s, `UPDATE usage_records SET model = 'model-asked'
		WHERE requested_model = 'model-asked' AND (created_at - $1) / `+fmt.Sprint(fillStep)+` % 2 = 0`,
		fillBase.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ExecForTest(ctx, s, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// checkAccountReads checks the reads of a case read one account at a
// time: one lookup of the accounts, and two reads of each account's
// share (from the start and from a floor), of the ten accounts or, with
// an error status, of those that have rows of its class, which the
// lookup finds in usage_records_account_status; one more read for the
// model asked alone, its rows that another model answered. With no
// status filter, the lookup and every share read the model index of
// each account.
func checkAccountReads(t *testing.T, c planCase, lookups, reads, shares [][]string) {
	t.Helper()
	errors := c.q.StatusClass == 5 || c.q.Status == 429
	accounts := len(shares) / 2
	wantReads := map[bool]int{true: 1, false: 0}[c.q.Model == ""]
	if len(lookups) != 1 || len(reads) != wantReads || len(shares)%2 != 0 ||
		accounts == 0 || accounts > 10 || !errors && accounts != 10 {
		t.Errorf("%s: %d lookups of accounts, %d other reads and %d reads of shares; want 1, %d and two for each of 10 accounts (some with an error status)",
			c.name, len(lookups), len(reads), len(shares), wantReads)
		return
	}
	lookup := strings.Join(lookups[0], "\n")
	if errors && !strings.Contains(lookup, "usage_records_account_status") {
		t.Errorf("%s: the lookup of accounts does not read usage_records_account_status:\n%s", c.name, lookup)
	}
	if c.q.StatusClass != 0 || c.q.Status != 0 {
		return
	}
	for _, plan := range slices.Concat(lookups, shares) {
		text := strings.Join(plan, "\n")
		if !regexp.MustCompile(`usage_records_account_model\b`).MatchString(text) {
			t.Errorf("%s: plan does not read usage_records_account_model:\n%s", c.name, text)
		}
	}
}

// checkPlan checks one statement's plan of case c on engine.
func checkPlan(t *testing.T, engine string, c planCase, plan []string) {
	t.Helper()
	text := strings.Join(plan, "\n")
	for _, step := range plan {
		if badStep.MatchString(strings.TrimSpace(step)) {
			t.Errorf("%s: plan step %q scans the table or sorts:\n%s", c.name, step, text)
		}
	}
	if !strings.Contains(text, "usage_records_") {
		t.Errorf("%s: no index of usage_records in the plan:\n%s", c.name, text)
	}
	// A later page seeks to its cursor, not to the end of the time range
	// and down from there (88 ms at 10 million rows).
	if engine == "sqlite" && !c.q.After.IsZero() && !strings.Contains(text, "(created_at,id)<(?,?))") {
		t.Errorf("%s: the index search is not bounded by the cursor:\n%s", c.name, text)
	}
	// PostgreSQL may read a frequent value through the time index,
	// filtering: as fast, and its choice.
	if engine == "sqlite" && !slices.ContainsFunc(c.indexes, func(ix string) bool {
		return regexp.MustCompile(`usage_records_` + ix + `( |$)`).MatchString(text)
	}) {
		t.Errorf("%s: plan uses none of usage_records_%v:\n%s", c.name, c.indexes, text)
	}
}
