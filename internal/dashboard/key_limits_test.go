package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// TestKeyLimits changes a key's limits from its form: set, refused field
// by field, cleared; a revoked key's form is not offered.
func TestKeyLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		owner := h.account(t, "owner@example.com")
		k := h.key(t, owner.ID, "ci")
		br := h.browser(t)
		br.signIn(owner)
		page := "/dashboard/keys/" + k.ID + "/limits"
		if r := br.get("/dashboard/keys"); !strings.Contains(r.Body, `href="`+page+`"`) {
			t.Errorf("the keys page does not link to the key's limits:\n%s", r.Body)
		}
		wantRedirect(t, "set", br.submit(page, page, url.Values{"rpm": {"30"}, "tpm": {"9000"}, "budget": {"4.25"}}),
			"/dashboard/limits?msg=limits-saved")
		want := store.Limits{RPM: 30, TPM: 9000, MonthlyBudget: 4*usd.USD + 25*usd.Cent}
		if got, _ := h.Store.KeyByID(ctx, k.ID); got.Limits != want {
			t.Errorf("limits %+v, want %+v", got.Limits, want)
		}
		if r := br.get(page); !strings.Contains(r.Body, `value="30"`) || !strings.Contains(r.Body, `value="4.25"`) {
			t.Errorf("the form does not show the key's limits:\n%s", r.Body)
		}
		for _, tt := range []struct{ field, value string }{{"rpm", "1.5"}, {"tpm", "-2"}, {"budget", "lots"}} {
			r := br.submit(page, page, url.Values{tt.field: {tt.value}})
			wantStatus(t, tt.field+"="+tt.value, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, `id="`+tt.field+`-error"`) {
				t.Errorf("%s=%s: no error on the field", tt.field, tt.value)
			}
		}
		wantRedirect(t, "clear", br.submit(page, page, url.Values{"rpm": {""}, "tpm": {"0"}}), "/dashboard/limits?msg=limits-saved")
		if got, _ := h.Store.KeyByID(ctx, k.ID); got.Limits != (store.Limits{}) {
			t.Errorf("after clearing: %+v", got.Limits)
		}
		if _, err := h.Store.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		wantRedirect(t, "revoked key's form", br.get(page), "/dashboard/keys?msg=already-revoked")
		wantRedirect(t, "revoked key's save", br.submit("/dashboard/keys", page, url.Values{"rpm": {"1"}}), "/dashboard/keys?msg=already-revoked")
	})
}

// TestLimitsPageShowsUse reads the rate limiter the gateway uses: after
// requests, the limits page shows what is in use for the key and the
// account, and nothing where no limit applies.
func TestLimitsPageShowsUse(t *testing.T) {
	ctx := context.Background()
	rates := limits.NewRates(limits.NewMemory(func() time.Time { return now })) // stopped: nothing comes back
	h := newHarness(t, storetest.Backend{Name: "sqlite", URL: storetest.SQLiteURL(t)}, func(o *dashboard.Options) { o.Rates = rates })
	owner := h.account(t, "owner@example.com")
	busy := h.key(t, owner.ID, "busy")
	h.key(t, owner.ID, "idle")
	// Defaults: key RPM 60, account TPM 100000 (see newHarness).
	sub := limits.Subject{AccountID: owner.ID, KeyID: busy.ID, KeyRPM: 60, AccountTPM: 100000}
	for range 7 {
		if out, err := rates.Reserve(ctx, sub, 1500); err != nil || out.Refused != nil {
			t.Fatalf("reserve: %+v %v", out.Refused, err)
		}
	}
	br := h.browser(t)
	br.signIn(owner)
	r := br.get("/dashboard/limits")
	wantStatus(t, "limits", r, http.StatusOK)
	for _, tt := range []struct {
		row       string
		want, not []string
	}{
		{"This account", []string{"10,500 in use now"}, nil},
		{"Key busy", []string{"7 in use now"}, []string{"10,500"}},
		{"Key idle", []string{"0 in use now"}, []string{"7 in use now"}},
	} {
		got := tableRow(t, r.Body, tt.row)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("row %s lacks %q:\n%s", tt.row, w, got)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, w) {
				t.Errorf("row %s shows %q:\n%s", tt.row, w, got)
			}
		}
	}
	if n := strings.Count(r.Body, "in use now</span>"); n != 3 {
		t.Errorf("%d figures in use, want 3 (the account's TPM, each key's RPM)", n)
	}
}
