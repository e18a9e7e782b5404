package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

var secretField = regexp.MustCompile(`id="secret" value="(whsec_[a-z0-9]+)"`)

func TestAlerts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		a := h.account(t, "owner@example.com")
		br := h.browser(t)
		br.signIn(a)

		invalid := []struct {
			name  string
			form  url.Values
			field string
			want  string
		}{
			{"no threshold", url.Values{}, "threshold", "Enter an amount of US dollars above 0"},
			{"zero", url.Values{"threshold": {"0"}}, "threshold", "above 0"},
			{"float syntax", url.Values{"threshold": {"1e2"}}, "threshold", "above 0"},
			{"bad webhook", url.Values{"threshold": {"5"}, "webhook": {"ftp://x"}}, "webhook", "Enter an http or https URL"},
			{"bad email", url.Values{"threshold": {"5"}, "email": {"not an email"}}, "email", "Enter an email address"},
		}
		for _, tt := range invalid {
			r := br.submit("/dashboard/alerts", "/dashboard/alerts", tt.form)
			wantStatus(t, tt.name, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, tt.want) || !strings.Contains(r.Body, `id="`+tt.field+`-error"`) {
				t.Errorf("%s: no error %q on field %s:\n%s", tt.name, tt.want, tt.field, r.Body)
			}
		}

		// With a webhook: the secret is shown once.
		r := br.submit("/dashboard/alerts", "/dashboard/alerts", url.Values{"threshold": {"12.345678"}, "webhook": {"https://hooks.example.com/sy"}})
		wantStatus(t, "add with a webhook", r, http.StatusOK)
		m := secretField.FindStringSubmatch(r.Body)
		if m == nil || r.Header.Get("Cache-Control") != "no-store" || !strings.Contains(r.Body, "cannot be shown again") {
			t.Fatalf("Cache-Control %q, page:\n%s", r.Header.Get("Cache-Control"), r.Body)
		}
		rules, _ := h.Store.AlertRules(ctx, a.ID)
		if len(rules) != 1 || rules[0].WebhookSecret != m[1] || rules[0].Threshold != 12*usd.USD+345678*usd.Micro {
			t.Fatalf("stored rules %+v, shown secret %s", rules, m[1])
		}

		// Without a channel: the owner's email.
		wantRedirect(t, "add without a channel", br.submit("/dashboard/alerts", "/dashboard/alerts", url.Values{"threshold": {"50"}}),
			"/dashboard/alerts?msg=alert-added")
		list := br.get("/dashboard/alerts?msg=alert-added")
		for _, w := range []string{"The alert was added.", "$12.345678", "https://hooks.example.com/sy", "$50.00", "Email owner@example.com"} {
			if !strings.Contains(list.Body, w) {
				t.Errorf("alerts page lacks %q", w)
			}
		}
		if strings.Contains(list.Body, m[1]) {
			t.Error("the alerts page shows the webhook secret again")
		}

		// History, with each delivery's status.
		ev := alerts.Event{Period: "2026-11", Threshold: rules[0].Threshold, Spend: 13 * usd.USD, CreatedAt: now.Add(-time.Hour)}
		if _, err := h.Store.FireAlert(ctx, rules[0], ev); err != nil {
			t.Fatal(err)
		}
		claims, err := h.Store.ClaimDeliveries(ctx, now, time.Minute, 10)
		if err != nil || len(claims) != 1 {
			t.Fatalf("claims %v, %v", claims, err)
		}
		d := claims[0].Delivery
		d.Status, d.Attempts, d.LastError = alerts.StatusFailed, 8, "webhook answered 410 Gone"
		if err := h.Store.FinishDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		list = br.get("/dashboard/alerts")
		for _, w := range []string{"2026-11", "$13.00", `<span class="status-failed">failed</span>`, "8 attempts", "webhook answered 410 Gone"} {
			if !strings.Contains(list.Body, w) {
				t.Errorf("history lacks %q", w)
			}
		}

		// Remove; the history stays.
		r = br.submit("/dashboard/alerts", "/dashboard/alerts/"+rules[0].ID+"/remove", nil)
		wantRedirect(t, "remove", r, "/dashboard/alerts?msg=alert-removed")
		if rules, _ := h.Store.AlertRules(ctx, a.ID); len(rules) != 1 || rules[0].Threshold != 50*usd.USD {
			t.Errorf("rules after remove: %+v", rules)
		}
		list = br.get("/dashboard/alerts?msg=alert-removed")
		if !strings.Contains(list.Body, "Alerts it already sent stay in the history.") || !strings.Contains(list.Body, "webhook answered 410 Gone") {
			t.Errorf("alerts page after remove:\n%s", list.Body)
		}
		wantStatus(t, "remove again", br.submit("/dashboard/alerts", "/dashboard/alerts/"+rules[0].ID+"/remove", nil), http.StatusNotFound)
	})
}
