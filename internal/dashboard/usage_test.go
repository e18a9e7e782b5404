package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/cli"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// usageFixture is two accounts with keys and usage: the owner's, which
// tests look at, and another's, which they must never see.
type usageFixture struct {
	owner, other       store.Account
	ci, bot, theirs    store.Key
	ownerRecords       []meter.Record
	otherModel         string
	otherCost          usd.Amount
	ownerNovemberSpend usd.Amount
}

func seedUsage(t *testing.T, h *harness) usageFixture {
	t.Helper()
	f := usageFixture{owner: h.account(t, "owner@example.com"), other: h.account(t, "other@example.com"),
		otherModel: "model-of-the-other-account", otherCost: 9*usd.USD + 99*usd.Cent}
	f.ci, f.bot = h.key(t, f.owner.ID, "ci"), h.key(t, f.owner.ID, "bot")
	f.theirs = h.key(t, f.other.ID, "key-of-the-other-account")
	day := func(d string) time.Time {
		tm, _ := time.Parse(time.DateOnly, d)
		return tm.Add(10 * time.Hour)
	}
	rec := func(acct store.Account, k store.Key, d, model string, prompt, completion int64, cost usd.Amount, status int) meter.Record {
		return meter.Record{ID: fmt.Sprintf("usg_%s_%s_%s_%d", k.ID, d, model, cost), RequestID: "req", Time: day(d), AccountID: acct.ID,
			KeyID: k.ID, Endpoint: "chat.completions", Model: model, Provider: "mock", UpstreamModel: model,
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, Cost: cost, Status: status}
	}
	f.ownerRecords = []meter.Record{
		rec(f.owner, f.ci, "2026-10-30", "gpt-4o", 1000, 500, 2*usd.USD, 200),
		rec(f.owner, f.ci, "2026-11-03", "gpt-4o-mini", 100, 50, 375*usd.Micro, 200),
		rec(f.owner, f.ci, "2026-11-03", "gpt-4o-mini", 100, 50, 375*usd.Micro+1, 200),
		rec(f.owner, f.bot, "2026-11-05", "claude-3-5-haiku", 10, 0, usd.USD+25*usd.Cent, 429),
		rec(f.owner, f.bot, "2026-11-22", "gpt-4o", 2000, 1000, 3*usd.USD+50*usd.Cent, 200),
	}
	f.ownerNovemberSpend = 750*usd.Micro + 1 + usd.USD + 25*usd.Cent + 3*usd.USD + 50*usd.Cent
	recs := append([]meter.Record{rec(f.other, f.theirs, "2026-11-04", f.otherModel, 7, 7, f.otherCost, 200)}, f.ownerRecords...)
	if _, err := h.Store.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return f
}

// cliUsage runs `switchyard usage` on the harness's database.
func cliUsage(t *testing.T, h *harness, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return map[string]string{"SWITCHYARD_DATABASE_URL": h.dbURL}[k] }}
	if code := cli.Run(context.Background(), append([]string{"usage"}, args...), env); code != 0 {
		t.Fatalf("switchyard usage %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

// TestUsageCSVMatchesCLI checks that the export has exactly the rows,
// columns and numbers of `switchyard usage --csv`.
func TestUsageCSVMatchesCLI(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedUsage(t, h)
		br := h.browser(t)
		br.signIn(f.owner)
		for _, by := range []string{"day", "model", "key"} {
			q := url.Values{"since": {"2026-10-01"}, "until": {"2026-11-30"}, "by": {by}}
			r := br.get("/dashboard/usage.csv?" + q.Encode())
			wantStatus(t, "csv by "+by, r, http.StatusOK)
			want := cliUsage(t, h, "--account", "owner@example.com", "--since", "2026-10-01", "--until", "2026-11-30", "--by", by, "--csv")
			if r.Body != want {
				t.Errorf("by %s: dashboard CSV\n%s\nswitchyard usage --csv\n%s", by, r.Body, want)
			}
			if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="switchyard-usage-2026-10-01-to-2026-11-30-by-`+by+`.csv"` {
				t.Errorf("Content-Disposition %q", cd)
			}
			if strings.Contains(r.Body, f.otherModel) || strings.Contains(r.Body, f.theirs.ID) {
				t.Errorf("by %s: the other account's usage is in the export:\n%s", by, r.Body)
			}
		}
		// The default period is this month, as for the command.
		r := br.get("/dashboard/usage.csv")
		if want := "day,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd\n" +
			"2026-11-03,2,0,200,100,300,0.000750000001\n2026-11-05,1,1,10,0,10,1.25\n2026-11-22,1,0,2000,1000,3000,3.50\n"; r.Body != want {
			t.Errorf("default CSV:\n%s\nwant\n%s", r.Body, want)
		}
	})
}

func TestUsagePage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedUsage(t, h)
		br := h.browser(t)
		br.signIn(f.owner)
		tests := []struct {
			query  string
			status int
			want   []string
			absent []string
		}{
			{"", http.StatusOK,
				[]string{`<th scope="row">2026-11-03</th>`, "0.000750000001", "4.750750000001", `value="2026-11-01"`, `value="2026-11-22"`,
					`<option value="day" selected>`, `href="/dashboard/usage.csv?by=day&amp;since=2026-11-01&amp;until=2026-11-22"`, "<svg"},
				[]string{"2026-10-30"}},
			{"?by=model&since=2026-10-01&until=2026-11-30", http.StatusOK,
				[]string{"<code>gpt-4o</code>", "<code>claude-3-5-haiku</code>", "5.50", `<option value="model" selected>`, "Cost per model"},
				nil},
			{"?by=key&since=2026-10-01", http.StatusOK,
				[]string{"ci <code>" + f.ci.ID + "</code>", "bot <code>" + f.bot.ID + "</code>"}, nil},
			{"?since=2026-12-01&until=2026-12-31", http.StatusOK, []string{"No usage in this period."}, nil},
			{"?since=yesterday", http.StatusBadRequest, []string{"“yesterday” is not a date such as 2026-05-01.", `value="yesterday"`}, nil},
			{"?since=2026-11-10&until=2026-11-01", http.StatusBadRequest, []string{"The first day, 2026-11-10, is after the last, 2026-11-01."}, nil},
			{"?by=provider", http.StatusBadRequest, []string{"Group by day, model or key."}, nil},
		}
		for _, tt := range tests {
			r := br.get("/dashboard/usage" + tt.query)
			wantStatus(t, "usage"+tt.query, r, tt.status)
			for _, w := range tt.want {
				if !strings.Contains(r.Body, w) {
					t.Errorf("usage%s lacks %q", tt.query, w)
				}
			}
			for _, w := range append(tt.absent, f.otherModel, f.theirs.ID, f.theirs.Name, "9.99") {
				if strings.Contains(r.Body, w) {
					t.Errorf("usage%s shows %q", tt.query, w)
				}
			}
		}
	})
}

func TestOverview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		f := seedUsage(t, h)
		budget := 10 * usd.USD
		if err := h.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: f.owner.ID, MonthlyBudget: &budget}); err != nil {
			t.Fatal(err)
		}
		br := h.browser(t)
		br.signIn(f.owner)
		r := br.get("/dashboard")
		wantStatus(t, "overview", r, http.StatusOK)
		for _, w := range []string{
			"Spend in November 2026", "$4.750750000001", "$10.00", `value="47"`, "47% used",
			"<dd>4</dd>",     // requests
			"<dd>3,310</dd>", // tokens
			`<th scope="row">2026-11-22</th><td class="num">1</td><td class="num">3,000</td><td class="num">$3.50</td>`,
			`aria-labelledby="spend-chart-title spend-chart-desc"`, "<title>2026-11-05: $1.25</title>",
		} {
			if !strings.Contains(r.Body, w) {
				t.Errorf("overview lacks %q", w)
			}
		}
		if n := strings.Count(figure(t, r.Body, "spend-chart"), `<rect class="bar"`); n != 22 {
			t.Errorf("%d bars, want one per day from the 1st to the 22nd", n)
		}
		// Top models: the most expensive first.
		iGPT, iClaude, iMini := strings.Index(r.Body, "<code>gpt-4o</code>"), strings.Index(r.Body, "<code>claude-3-5-haiku</code>"),
			strings.Index(r.Body, "<code>gpt-4o-mini</code>")
		if !(iGPT >= 0 && iGPT < iClaude && iClaude < iMini) {
			t.Errorf("top models out of order: %d %d %d", iGPT, iClaude, iMini)
		}
		for _, w := range []string{f.otherModel, f.theirs.Name, "2026-10-30", "9.99"} {
			if strings.Contains(r.Body, w) {
				t.Errorf("overview shows %q", w)
			}
		}
	})
}

func TestLimitsPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil) // defaults: key RPM 60, account TPM 100000
		f := seedUsage(t, h)
		budget, keyBudget := 10*usd.USD, 2*usd.USD
		for _, u := range []store.LimitsUpdate{
			{AccountID: f.owner.ID, RPM: ptr[int64](100), MonthlyBudget: &budget},
			{AccountID: f.owner.ID, KeyID: f.bot.ID, TPM: ptr[int64](5000), MonthlyBudget: &keyBudget},
			{AccountID: f.other.ID, KeyID: f.theirs.ID, RPM: ptr[int64](7777)},
		} {
			if err := h.Store.SetLimits(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		gone := h.key(t, f.owner.ID, "revoked one")
		if _, err := h.Store.RevokeKey(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		br := h.browser(t)
		br.signIn(f.owner)
		r := br.get("/dashboard/limits")
		wantStatus(t, "limits", r, http.StatusOK)
		tests := []struct {
			row  string
			want []string
		}{
			{"This account", []string{">100</td>", "100,000 <span class=\"muted\">(default)</span>", "$10.00", "$4.750750000001", `value="47"`}},
			{"Key ci", []string{"60 <span class=\"muted\">(default)</span>", "Unlimited <span class=\"muted\">(default)</span>", "None", "$0.000750000001"}},
			{"Key bot", []string{"60 <span class=\"muted\">(default)</span>", ">5,000</td>", "$2.00", "$4.75", `value="237"`}},
		}
		for _, tt := range tests {
			got := tableRow(t, r.Body, tt.row)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("row %s lacks %q:\n%s", tt.row, w, got)
				}
			}
		}
		for _, w := range []string{"revoked one", f.theirs.Name, "7,777"} {
			if strings.Contains(r.Body, w) {
				t.Errorf("limits page shows %q", w)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestMeteringOff checks that the pages about spend say when nothing
// enforces budgets and alerts.
func TestMeteringOff(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], func(o *dashboard.Options) { o.Metering = false })
	a := h.account(t, "owner@example.com")
	br := h.browser(t)
	br.signIn(a)
	for _, p := range []string{"/dashboard", "/dashboard/limits", "/dashboard/alerts"} {
		if r := br.get(p); !strings.Contains(r.Body, "budgets and billing alerts are not enforced") {
			t.Errorf("%s does not say that metering is off", p)
		}
	}
	if r := br.get("/dashboard/keys"); strings.Contains(r.Body, "not enforced") {
		t.Error("the keys page speaks of metering")
	}
}
