package dashboard_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// requestsFixture is two accounts' requests: 61 of the owner's (more
// than a page), some sharing a time, and 3 of another account.
type requestsFixture struct {
	owner, other store.Account
	ci, bot      store.Key
	theirs       store.Key
	recs         []meter.Record
}

func seedRequests(t *testing.T, h *harness) requestsFixture {
	t.Helper()
	f := requestsFixture{owner: h.account(t, "owner@example.com"), other: h.account(t, "other@example.com")}
	f.ci, f.bot, f.theirs = h.key(t, f.owner.ID, "ci"), h.key(t, f.owner.ID, "bot"), h.key(t, f.other.ID, "theirs")
	base := now.Add(-3 * time.Hour)
	add := func(i int, acct store.Account, k store.Key, model string, status int) {
		f.recs = append(f.recs, meter.Record{ID: fmt.Sprintf("usg_%03d", i), RequestID: fmt.Sprintf("req-%03d", i),
			Time: base.Add(time.Duration(i/2) * time.Minute), AccountID: acct.ID, KeyID: k.ID, Endpoint: "chat.completions",
			Model: model, RequestedModel: model, Provider: "mock", Deployment: "mock/" + model, PromptTokens: 10,
			CompletionTokens: 5, TotalTokens: 15, Cost: 1234, Latency: 1500 * time.Microsecond, Status: status,
			ErrorType: map[bool]string{true: "rate_limit_exceeded"}[status == 429]})
	}
	for i := range 61 {
		k, status := f.ci, 200
		if i%3 == 0 {
			k = f.bot
		}
		if i%10 == 7 {
			status = 429
		}
		add(i, f.owner, k, "gpt-4o-mini", status)
	}
	for i := 61; i < 64; i++ {
		add(i, f.other, f.theirs, "model-of-the-other-account", 200)
	}
	if _, err := h.Store.WriteUsage(context.Background(), f.recs); err != nil {
		t.Fatal(err)
	}
	return f
}

// requestIDs returns the request IDs of the page's rows, in order.
func requestIDs(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<th scope="row" class="nowrap" title="([^"]+)">`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

var nextLink = regexp.MustCompile(`<a class="button secondary" href="([^"]+)" rel="next">`)

// walkRequests follows the Next links from path and returns every
// request ID in order.
func walkRequests(t *testing.T, br *browser, path string) []string {
	t.Helper()
	var ids []string
	for range 20 {
		r := br.get(path)
		wantStatus(t, path, r, http.StatusOK)
		ids = append(ids, requestIDs(r.Body)...)
		m := nextLink.FindStringSubmatch(r.Body)
		if m == nil {
			return ids
		}
		path = strings.ReplaceAll(m[1], "&amp;", "&")
	}
	t.Fatal("the Next links do not end")
	return nil
}

// want returns the request IDs of f's records that keep selects, newest
// first.
func (f requestsFixture) want(keep func(meter.Record) bool) []string {
	var ids []string
	for i := len(f.recs) - 1; i >= 0; i-- {
		if keep(f.recs[i]) {
			ids = append(ids, f.recs[i].RequestID)
		}
	}
	// Records at equal times come by ID, newest (highest) first: the
	// reverse of f.recs is that order.
	return ids
}

func TestRequestsPageOwner(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedRequests(t, h)
		br := h.browser(t)
		br.signIn(f.owner)
		mine := func(r meter.Record) bool { return r.AccountID == f.owner.ID }
		tests := []struct {
			name, query string
			keep        func(meter.Record) bool
		}{
			{"every page", "", mine},
			// The account comes from the session, never from the query.
			{"another account asked for", "account=" + f.other.ID, mine},
			{"another account's key", "key=" + f.theirs.ID, func(meter.Record) bool { return false }},
			{"one key", "key=" + f.bot.ID, func(r meter.Record) bool { return mine(r) && r.KeyID == f.bot.ID }},
			{"4xx", "status=4xx", func(r meter.Record) bool { return mine(r) && r.Status == 429 }},
			{"exact status", "status=200&key=" + f.ci.ID, func(r meter.Record) bool { return mine(r) && r.Status == 200 && r.KeyID == f.ci.ID }},
			{"model", "model=gpt-4o-mini&asked=gpt-4o-mini", mine},
			{"another account's model", "model=model-of-the-other-account", func(meter.Record) bool { return false }},
			{"time range", "since=" + now.Add(-3*time.Hour).Format("2006-01-02T15:04") + "&until=" + now.Add(-170*time.Minute).Format("2006-01-02T15:04"),
				func(r meter.Record) bool { return mine(r) && r.Time.Before(now.Add(-169*time.Minute)) }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := walkRequests(t, br, "/dashboard/requests?"+tt.query)
				if diff := cmp.Diff(f.want(tt.keep), got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("request IDs (-want +got):\n%s", diff)
				}
			})
		}
		r := br.get("/dashboard/requests?account=" + f.other.ID)
		for _, theirs := range []string{"model-of-the-other-account", f.theirs.ID, "other@example.com", `id="account"`} {
			if strings.Contains(r.Body, theirs) {
				t.Errorf("an owner's page shows %q", theirs)
			}
		}
		if !strings.Contains(r.Body, `href="/dashboard/requests" aria-current="page"`) {
			t.Error("the navigation does not mark Requests")
		}
	})
}

func TestRequestsPageOperator(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedRequests(t, h)
		br := h.browser(t)
		br.signIn(h.operator(t, "ops@example.com"))
		got := walkRequests(t, br, "/dashboard/requests")
		if diff := cmp.Diff(f.want(func(meter.Record) bool { return true }), got); diff != "" {
			t.Errorf("every account (-want +got):\n%s", diff)
		}
		got = walkRequests(t, br, "/dashboard/requests?account="+f.other.ID)
		if diff := cmp.Diff([]string{"req-063", "req-062", "req-061"}, got); diff != "" {
			t.Errorf("one account (-want +got):\n%s", diff)
		}
		r := br.get("/dashboard/requests?account=" + f.other.ID)
		if !strings.Contains(r.Body, ">theirs ("+f.theirs.ID+")</option>") || !strings.Contains(r.Body, "<td>other@example.com</td>") {
			t.Errorf("the operator's page lacks the account's keys or email:\n%s", r.Body)
		}
	})
}

func TestRequestsCSV(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedRequests(t, h)
		br := h.browser(t)
		br.signIn(f.owner)
		r := br.get("/dashboard/requests.csv?" + url.Values{"status": {"4xx"}, "account": {f.other.ID}}.Encode())
		wantStatus(t, "export", r, http.StatusOK)
		if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		lines, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(store.RequestCSVHeader, lines[0]); diff != "" {
			t.Errorf("header (-want +got):\n%s", diff)
		}
		var got []string
		for _, l := range lines[1:] {
			got = append(got, l[1])
		}
		want := f.want(func(r meter.Record) bool { return r.AccountID == f.owner.ID && r.Status == 429 })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("exported requests (-want +got):\n%s", diff)
		}
		wantRow := []string{"2026-11-22T12:58:00.000Z", "req-057", f.owner.ID, f.bot.ID, "bot", "gpt-4o-mini", "gpt-4o-mini",
			"mock/gpt-4o-mini", "429", "1.500", "0.000", "10", "5", "0.000000001234", "rate_limit_exceeded"}
		if i := slices.IndexFunc(lines, func(l []string) bool { return l[1] == "req-057" }); i < 0 {
			t.Error("no row req-057")
		} else if diff := cmp.Diff(wantRow, lines[i]); diff != "" {
			t.Errorf("row req-057 (-want +got):\n%s", diff)
		}
	})
}

// TestRequestsBadFilters answers every filter it cannot read with 400
// and a message naming it, on the page and the export; never 500.
func TestRequestsBadFilters(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	f := seedRequests(t, h)
	br := h.browser(t)
	br.signIn(f.owner)
	tests := []struct{ query, want string }{
		{"cursor=not-a-cursor", "cursor"},
		{"cursor=" + url.QueryEscape(store.Cursor{Time: 1, ID: "x\x00"}.String()), "cursor"},
		{"status=abc", "status"},
		{"status=600", "status"},
		{"status=6xx", "status"},
		{"since=yesterday", "since"},
		{"until=2026-13-01", "until"},
		{"since=2026-11-22&until=2026-11-21", "since"},
		{"model=%FF", "model"},
		{"asked=a%00b", "asked"},
		{"key=" + strings.Repeat("k", 201), "key"},
	}
	for _, tt := range tests {
		for _, path := range []string{"/dashboard/requests?", "/dashboard/requests.csv?"} {
			r := br.get(path + tt.query)
			wantStatus(t, path+tt.query, r, http.StatusBadRequest)
			if !strings.Contains(r.Body, "“"+tt.want+"”") {
				t.Errorf("%s%s: the message does not name %q:\n%s", path, tt.query, tt.want, r.Body)
			}
		}
	}
}
