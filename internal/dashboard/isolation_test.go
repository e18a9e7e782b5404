package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// TestIsolation signs in as one owner and tries every route on another
// account's objects: those that take an ID answer 404 and change
// nothing; those that show data show none of the other account's.
func TestIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		f := seedUsage(t, h)
		theirRule, err := h.Store.AddAlertRule(ctx, alerts.Rule{AccountID: f.other.ID, Threshold: 7 * usd.USD,
			WebhookURL: "https://hooks.other.example/secret-path"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Store.FireAlert(ctx, theirRule, alerts.Event{Period: "2026-11", Threshold: 7 * usd.USD, Spend: 9 * usd.USD}); err != nil {
			t.Fatal(err)
		}
		br := h.browser(t)
		br.signIn(f.owner)

		byID := []struct{ method, path string }{
			{"GET", "/dashboard/keys/" + f.theirs.ID + "/revoke"},
			{"POST", "/dashboard/keys/" + f.theirs.ID + "/revoke"},
			{"GET", "/dashboard/keys/" + f.theirs.ID + "/limits"},
			{"POST", "/dashboard/keys/" + f.theirs.ID + "/limits"},
			{"POST", "/dashboard/alerts/" + theirRule.ID + "/remove"},
		}
		for _, tt := range byID {
			var r response
			if tt.method == "GET" {
				r = br.get(tt.path)
			} else {
				r = br.submit("/dashboard/keys", tt.path, url.Values{"rpm": {"1"}, "budget": {"1"}})
			}
			wantStatus(t, tt.method+" "+tt.path, r, http.StatusNotFound)
			if strings.Contains(r.Body, f.theirs.Name) || strings.Contains(r.Body, f.theirs.Hint) {
				t.Errorf("%s %s: the 404 page shows the other key", tt.method, tt.path)
			}
			if !strings.Contains(r.Body, f.owner.Email) || !strings.Contains(r.Body, `href="/dashboard/keys"`) {
				t.Errorf("%s %s: the 404 page lost the owner's navigation", tt.method, tt.path)
			}
		}
		if k, _ := h.Store.KeyByID(ctx, f.theirs.ID); k.Status != store.KeyActive {
			t.Error("the other account's key was revoked")
		}
		if k, _ := h.Store.KeyByID(ctx, f.theirs.ID); k.Limits != (store.Limits{}) {
			t.Errorf("the other account's key limits were changed: %+v", k.Limits)
		}
		if got := h.Revoker.revoked(); len(got) != 0 {
			t.Errorf("revoker called with %v", got)
		}
		if rules, _ := h.Store.AlertRules(ctx, f.other.ID); len(rules) != 1 {
			t.Error("the other account's alert was removed")
		}

		theirs := []string{f.other.Email, f.theirs.ID, f.theirs.Name, f.theirs.Hint, f.otherModel, f.otherCost.String(),
			theirRule.ID, theirRule.WebhookURL, "$7.00"}
		pages := []string{"/dashboard", "/dashboard/keys", "/dashboard/keys/new", "/dashboard/usage",
			"/dashboard/usage?by=model&since=2026-01-01", "/dashboard/usage?by=key&since=2026-01-01",
			"/dashboard/usage.csv?by=key&since=2026-01-01", "/dashboard/usage.csv?by=model&since=2026-01-01",
			"/dashboard/limits", "/dashboard/alerts", "/dashboard/password"}
		for _, p := range pages {
			r := br.get(p)
			wantStatus(t, p, r, http.StatusOK)
			for _, s := range theirs {
				if strings.Contains(r.Body, s) {
					t.Errorf("%s shows %q of the other account", p, s)
				}
			}
		}
	})
}
