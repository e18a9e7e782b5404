package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// figure returns the figure of the chart id in body.
func figure(t *testing.T, body, id string) string {
	t.Helper()
	start := strings.Index(body, `aria-labelledby="`+id+`-title`)
	if start < 0 {
		t.Fatalf("no chart %q on the page", id)
	}
	end := strings.Index(body[start:], "</figure>")
	return body[start : start+end]
}

// seedHealth writes requests of the last hours for two accounts: the
// owner's answered by "owner-model" (with errors), the other's by
// "model-of-the-other-account", which the owner must never see.
func seedHealth(t *testing.T, h *harness, owner, other store.Account) {
	t.Helper()
	var recs []meter.Record
	add := func(acct store.Account, model string, ago time.Duration, latency time.Duration, status int) {
		recs = append(recs, meter.Record{ID: fmt.Sprintf("hl_%d", len(recs)), RequestID: "req", Time: now.Add(-ago),
			AccountID: acct.ID, KeyID: "k_" + acct.ID, Endpoint: "chat.completions", Model: model, Provider: "mock",
			UpstreamModel: model, Deployment: "mock/" + model, Latency: latency, Status: status})
	}
	for i := range 20 {
		add(owner, "owner-model", 2*time.Hour, time.Duration(i+1)*10*time.Millisecond, 200)
	}
	add(owner, "owner-model", 20*time.Minute, time.Second, 502)
	add(owner, "owner-model", 30*time.Hour, time.Second, 200) // before the window
	for range 7 {
		add(other, "model-of-the-other-account", time.Hour, 3*time.Second, 200)
	}
	if _, err := h.Store.WriteUsage(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

// TestOverviewHealth draws the owner's requests, errors and latency of
// the last 24 hours, and nothing of another account.
func TestOverviewHealth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		owner, other := h.account(t, "owner@example.com"), h.account(t, "other@example.com")
		seedHealth(t, h, owner, other)
		br := h.browser(t)
		br.signIn(owner)
		r := br.get("/dashboard")
		wantStatus(t, "overview", r, http.StatusOK)
		traffic, lat := figure(t, r.Body, "traffic-chart"), figure(t, r.Body, "latency-chart")
		for _, w := range []string{
			"21 requests of your account from 2026-11-21 16:00 to 2026-11-22 16:00 UTC, 1 of them errors",
			`<th scope="row">2026-11-22 13:00</th><td class="num">20</td><td class="num">0</td>`,
			`<th scope="row">2026-11-22 15:00</th><td class="num">1</td><td class="num">1</td>`,
			`<th scope="row"><code>owner-model</code></th><td class="num">20</td><td class="num">100 ms</td><td class="num">190 ms</td>`,
		} {
			if !strings.Contains(r.Body, w) {
				t.Errorf("overview lacks %q", w)
			}
		}
		for _, w := range []string{"<title>2026-11-22 13:00 UTC: 20 requests, 0 errors</title>", `class="bar bar-error"`, ">20<"} {
			if !strings.Contains(traffic, w) {
				t.Errorf("traffic chart lacks %q:\n%s", w, traffic)
			}
		}
		if n := strings.Count(traffic, "<rect "); n != 25 {
			t.Errorf("traffic chart has %d bars, want 24 hours and 1 of errors", n)
		}
		for _, w := range []string{">owner-model<", "p50 100 ms · p95 190 ms", `class="bar bar-p95"`} {
			if !strings.Contains(lat, w) {
				t.Errorf("latency chart lacks %q:\n%s", w, lat)
			}
		}
		if strings.Contains(r.Body, "model-of-the-other-account") || strings.Contains(r.Body, "3.0 s") {
			t.Error("the overview shows another account's requests")
		}
	})
}

// TestOverviewHealthEmpty says so when there were no requests.
func TestOverviewHealthEmpty(t *testing.T) {
	h := newHarness(t, storetest.Backend{Name: "sqlite", URL: storetest.SQLiteURL(t)}, nil)
	owner, other := h.account(t, "owner@example.com"), h.account(t, "other@example.com")
	seedHealth(t, h, other, owner) // the other account's only
	br := h.browser(t)
	br.signIn(h.account(t, "quiet@example.com"))
	r := br.get("/dashboard")
	wantStatus(t, "overview", r, http.StatusOK)
	if want := "No requests of your account in the last 24 hours (2026-11-21 16:00 to 2026-11-22 16:00 UTC)."; !strings.Contains(r.Body, want) {
		t.Errorf("overview lacks %q", want)
	}
	if strings.Contains(r.Body, "traffic-chart") || strings.Contains(r.Body, "latency-chart") {
		t.Error("the overview draws charts without requests")
	}
}

// TestProvidersPageHealth draws every account's requests, with latency
// per deployment, for the operator.
func TestProvidersPageHealth(t *testing.T) {
	hs := providersHarness(t, nil)
	owner, other := hs.account(t, "owner@example.com"), hs.account(t, "other@example.com")
	seedHealth(t, hs, owner, other)
	br := hs.browser(t)
	br.signIn(hs.operator(t, "ops@example.com"))
	r := br.get("/dashboard/admin/providers")
	wantStatus(t, "providers page", r, http.StatusOK)
	lat := figure(t, r.Body, "latency-chart")
	for _, w := range []string{">mock/model-of-the-other-account<", "p50 3.0 s · p95 3.0 s", ">mock/owner-model<", "per deployment"} {
		if !strings.Contains(lat, w) {
			t.Errorf("latency chart lacks %q:\n%s", w, lat)
		}
	}
	if want := "28 requests of all accounts"; !strings.Contains(r.Body, want) {
		t.Errorf("providers page lacks %q", want)
	}
	// The owner's 20 answered come before the other's 7: most requested first.
	if i, j := strings.Index(lat, "owner-model"), strings.Index(lat, "model-of-the-other-account"); i > j {
		t.Errorf("latency rows out of order: the owner's at %d, the other's at %d", i, j)
	}
}
