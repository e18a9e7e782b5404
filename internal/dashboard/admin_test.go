package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// operator creates an operator account with testPassword.
func (h *harness) operator(t *testing.T, email string) store.Account {
	t.Helper()
	a, err := h.Store.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: testHash(), IsAdmin: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestOperatorPagesRefuseOwners tries every operator route as an owner,
// who gets 403 and changes nothing, and signed out, which leads to the
// sign-in page.
func TestOperatorPagesRefuseOwners(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		owner, victim := h.account(t, "owner@example.com"), h.account(t, "victim@example.com")
		victimKey := h.key(t, victim.ID, "victim's key")
		routes := []struct{ method, path string }{
			{"GET", "/dashboard/admin/accounts/" + victim.ID + "/keys/" + victimKey.ID + "/revoke"},
			{"POST", "/dashboard/admin/accounts/" + victim.ID + "/keys/" + victimKey.ID + "/revoke"},
			{"GET", "/dashboard/admin/accounts"},
			{"GET", "/dashboard/admin/accounts/" + victim.ID},
			{"GET", "/dashboard/admin/providers"},
			{"POST", "/dashboard/admin/accounts"},
			{"POST", "/dashboard/admin/accounts/" + victim.ID},
			{"POST", "/dashboard/admin/accounts/" + victim.ID + "/disable"},
			{"POST", "/dashboard/admin/accounts/" + owner.ID + "/enable"},
			{"POST", "/dashboard/admin/accounts/" + victim.ID + "/password"},
		}
		forms := url.Values{"email": {"new@example.com"}, "password": {"long enough password"}, "operator": {"on"},
			"rpm": {"1"}, "models": {"nothing-at-all"}}
		ownerBrowser, anonymous := h.browser(t), h.browser(t)
		ownerBrowser.signIn(owner)
		for _, tt := range routes {
			var r response
			if tt.method == "GET" {
				r = ownerBrowser.get(tt.path)
			} else {
				r = ownerBrowser.submit("/dashboard/keys", tt.path, forms)
			}
			wantStatus(t, "owner: "+tt.method+" "+tt.path, r, http.StatusForbidden)
			if strings.Contains(r.Body, victim.Email) {
				t.Errorf("owner: %s %s shows another account", tt.method, tt.path)
			}
			if tt.method == "GET" {
				wantRedirect(t, "signed out: GET "+tt.path, anonymous.get(tt.path), "/dashboard/login?next="+url.QueryEscape(tt.path))
			} else {
				wantRedirect(t, "signed out: POST "+tt.path, anonymous.post(tt.path, forms), "/dashboard/login")
			}
		}
		if accts, _ := h.Store.ListAccounts(ctx); len(accts) != 2 {
			t.Errorf("%d accounts, want the 2 there were", len(accts))
		}
		if got := h.Revoker.revoked(); len(got) != 0 {
			t.Errorf("an owner revoked %v", got)
		}
		if v, _ := h.Store.AccountByID(ctx, victim.ID); v.Disabled || v.Limits != (store.Limits{}) || len(v.Models) != 0 {
			t.Errorf("the other account was changed: %+v", v)
		}
		if r := ownerBrowser.get("/dashboard"); strings.Contains(r.Body, "/dashboard/admin/") {
			t.Error("an owner's navigation links to the operator pages")
		}
	})
}

// TestOperatorCreatesAccounts creates accounts from the accounts page:
// with a typed password, with a generated one shown once, and refuses
// bad input field by field.
func TestOperatorCreatesAccounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		op := h.operator(t, "ops@example.com")
		br := h.browser(t)
		br.signIn(op)
		list := br.get("/dashboard/admin/accounts")
		wantStatus(t, "accounts page", list, http.StatusOK)
		if !strings.Contains(list.Body, "ops@example.com") || !strings.Contains(list.Body, `href="/dashboard/admin/accounts"`) {
			t.Errorf("accounts page lacks the operator or the navigation:\n%s", list.Body)
		}

		const pw = "a typed password"
		r := br.submit("/dashboard/admin/accounts", "/dashboard/admin/accounts", url.Values{"email": {" New@Example.com "}, "password": {pw}})
		a, err := h.Store.AccountByEmail(ctx, "new@example.com")
		if err != nil {
			t.Fatal(err)
		}
		wantRedirect(t, "create with a password", r, "/dashboard/admin/accounts/"+a.ID+"?msg=account-created")
		if a.IsAdmin || a.Disabled {
			t.Errorf("created %+v, want an active owner", a)
		}
		if hash, _ := h.Store.PasswordHash(ctx, a.Email); !password.Check(pw, hash) {
			t.Error("the typed password does not sign in")
		}

		r = br.submit("/dashboard/admin/accounts", "/dashboard/admin/accounts", url.Values{"email": {"second-op@example.com"}, "operator": {"on"}})
		wantStatus(t, "create with a generated password", r, http.StatusOK)
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("the generated password's page has Cache-Control %q", r.Header.Get("Cache-Control"))
		}
		generated := regexpValue(t, r.Body, `id="new-password" value="([^"]+)"`)
		second, _ := h.Store.AccountByEmail(ctx, "second-op@example.com")
		if hash, _ := h.Store.PasswordHash(ctx, second.Email); !second.IsAdmin || !password.Check(generated, hash) || len(generated) < 20 {
			t.Errorf("generated account %+v with password %q that does not sign in", second, generated)
		}
		if again := br.get("/dashboard/admin/accounts/" + second.ID); strings.Contains(again.Body, generated) {
			t.Error("the generated password is shown again")
		}

		bad := []struct {
			form  url.Values
			field string
		}{
			{url.Values{"email": {"not an email"}}, "email"},
			{url.Values{"email": {"NEW@example.com"}, "password": {"long enough"}}, "email"}, // taken
			{url.Values{"email": {"short@example.com"}, "password": {"short"}}, "password"},
		}
		for _, tt := range bad {
			r := br.submit("/dashboard/admin/accounts", "/dashboard/admin/accounts", tt.form)
			wantStatus(t, "create "+tt.form.Encode(), r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, `id="`+tt.field+`-error"`) {
				t.Errorf("create %s: no error on %s:\n%s", tt.form.Encode(), tt.field, r.Body)
			}
		}
		if accts, _ := h.Store.ListAccounts(ctx); len(accts) != 3 {
			t.Errorf("%d accounts, want 3", len(accts))
		}
	})
}

// TestOperatorRevokesKey revokes a key of another account from that
// account's page, through a confirmation; a key ID under the wrong
// account is 404, and a revoked key goes back with a message.
func TestOperatorRevokesKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		op := h.operator(t, "ops@example.com")
		owner, other := h.account(t, "owner@example.com"), h.account(t, "other@example.com")
		leaked, kept := h.key(t, owner.ID, "leaked key"), h.key(t, owner.ID, "kept key")
		br := h.browser(t)
		br.signIn(op)
		page := "/dashboard/admin/accounts/" + owner.ID
		confirm := page + "/keys/" + leaked.ID + "/revoke"

		if p := br.get(page); !strings.Contains(p.Body, `href="`+confirm+`"`) || !strings.Contains(p.Body, "Revoke<span class=\"vh\"> leaked key</span>") {
			t.Errorf("the account page has no Revoke link for the key:\n%s", p.Body)
		}
		c := br.get(confirm)
		wantStatus(t, "confirmation", c, http.StatusOK)
		if !strings.Contains(c.Body, "is permanent") || !strings.Contains(c.Body, `action="`+confirm+`"`) || !strings.Contains(c.Body, `<a href="`+page+`">Keep it</a>`) {
			t.Errorf("confirmation page:\n%s", c.Body)
		}
		wantRedirect(t, "revoke", br.submit(confirm, confirm, nil), page+"?msg=key-revoked")
		if got := h.Revoker.revoked(); !cmp.Equal(got, []string{leaked.ID}) {
			t.Errorf("revoked %v, want only %s", got, leaked.ID)
		}
		if k, _ := h.Store.KeyByID(ctx, kept.ID); k.Status != store.KeyActive {
			t.Error("the other key was revoked too")
		}
		wantRedirect(t, "confirm a revoked key", br.get(confirm), page+"?msg=already-revoked")
		wantRedirect(t, "revoke a revoked key", br.submit(page, confirm, nil), page+"?msg=already-revoked")

		wrong := "/dashboard/admin/accounts/" + other.ID + "/keys/" + kept.ID + "/revoke"
		wantStatus(t, "a key under the wrong account", br.get(wrong), http.StatusNotFound)
		wantStatus(t, "revoke under the wrong account", br.submit(page, wrong, nil), http.StatusNotFound)
		if k, _ := h.Store.KeyByID(ctx, kept.ID); k.Status != store.KeyActive {
			t.Error("a key was revoked under another account's URL")
		}
	})
}

// TestOperatorSetsPassword sets another account's password, typed and
// generated (shown once); each signs the owner out everywhere; a short one
// is refused beside the field; the operator's own goes through the
// password page.
func TestOperatorSetsPassword(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		op := h.operator(t, "ops@example.com")
		owner := h.account(t, "owner@example.com")
		br := h.browser(t)
		br.signIn(op)
		ownerBrowser := h.browser(t)
		ownerBrowser.signIn(owner)
		page := "/dashboard/admin/accounts/" + owner.ID
		action := page + "/password"

		const typed = "a typed password"
		wantRedirect(t, "typed", br.submit(page, action, url.Values{"password": {typed}}), page+"?msg=password-set")
		if hash, _ := h.Store.PasswordHash(ctx, owner.Email); !password.Check(typed, hash) {
			t.Error("the typed password does not sign in")
		}
		wantRedirect(t, "the owner's session after the reset", ownerBrowser.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
		if !strings.Contains(br.get(page+"?msg=password-set").Body, "Its owner was signed out everywhere") {
			t.Error("no message after the reset")
		}

		r := br.submit(page, action, url.Values{"password": {""}})
		wantStatus(t, "generated", r, http.StatusOK)
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("the generated password's page has Cache-Control %q", r.Header.Get("Cache-Control"))
		}
		generated := regexpValue(t, r.Body, `id="new-password" value="([^"]+)"`)
		if hash, _ := h.Store.PasswordHash(ctx, owner.Email); !password.Check(generated, hash) || len(generated) < 20 {
			t.Errorf("generated password %q does not sign in", generated)
		}
		if again := br.get(page); strings.Contains(again.Body, generated) {
			t.Error("the generated password is shown again")
		}

		r = br.submit(page, action, url.Values{"password": {"short"}})
		wantStatus(t, "short", r, http.StatusUnprocessableEntity)
		if !strings.Contains(r.Body, `id="password-error"`) {
			t.Errorf("no error beside the password field:\n%s", r.Body)
		}
		if hash, _ := h.Store.PasswordHash(ctx, owner.Email); !password.Check(generated, hash) {
			t.Error("a refused password changed the account's")
		}

		self := "/dashboard/admin/accounts/" + op.ID
		if strings.Contains(br.get(self).Body, self+"/password") {
			t.Error("the operator's own account page offers to set its password")
		}
		wantStatus(t, "own password", br.submit(self, self+"/password", url.Values{"password": {"another long one"}}), http.StatusConflict)
		wantStatus(t, "no such account", br.submit(page, "/dashboard/admin/accounts/acct_nope/password", url.Values{"password": {"long enough"}}), http.StatusNotFound)
	})
}

// TestOperatorUpdatesAccount sets an account's limits and models,
// clears them, refuses bad values, and disables and enables it; the
// owner's session ends with the disable.
func TestOperatorUpdatesAccount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		op, owner := h.operator(t, "ops@example.com"), h.account(t, "owner@example.com")
		key := h.key(t, owner.ID, "owner's key")
		br, ownerBrowser := h.browser(t), h.browser(t)
		br.signIn(op)
		ownerBrowser.signIn(owner)
		page := "/dashboard/admin/accounts/" + owner.ID
		if r := br.get(page); !strings.Contains(r.Body, key.Hint) || !strings.Contains(r.Body, "owner@example.com") {
			t.Errorf("account page lacks the account's key:\n%s", r.Body)
		}

		r := br.submit(page, page, url.Values{"rpm": {"120"}, "tpm": {"50000"}, "budget": {"12.50"}, "models": {"gpt-4o, claude-*"}})
		wantRedirect(t, "save", r, page+"?msg=account-saved")
		got, _ := h.Store.AccountByID(ctx, owner.ID)
		want := store.Limits{RPM: 120, TPM: 50000, MonthlyBudget: 12*usd.USD + 50*usd.Cent}
		if got.Limits != want || strings.Join(got.Models, ",") != "gpt-4o,claude-*" {
			t.Errorf("saved %+v %v, want %+v [gpt-4o claude-*]", got.Limits, got.Models, want)
		}
		if r := br.get(page); !strings.Contains(r.Body, `value="12.50"`) || !strings.Contains(r.Body, `value="gpt-4o, claude-*"`) {
			t.Errorf("the form does not show the saved values:\n%s", r.Body)
		}
		if r := ownerBrowser.get("/dashboard/limits"); !strings.Contains(r.Body, "$12.50") || !strings.Contains(r.Body, "120") {
			t.Errorf("the owner's limits page does not show the new limits:\n%s", r.Body)
		}

		for _, tt := range []struct{ field, value string }{{"rpm", "-1"}, {"tpm", "ten"}, {"budget", "five"}, {"budget", "-3"}, {"models", `gpt*4`}, {"rpm", "1000000001"}} {
			r := br.submit(page, page, url.Values{tt.field: {tt.value}})
			wantStatus(t, tt.field+"="+tt.value, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, `id="`+tt.field+`-error"`) {
				t.Errorf("%s=%s: no error on the field:\n%s", tt.field, tt.value, r.Body)
			}
		}
		if got, _ := h.Store.AccountByID(ctx, owner.ID); got.Limits != want {
			t.Errorf("a refused form changed the limits to %+v", got.Limits)
		}

		wantRedirect(t, "clear", br.submit(page, page, url.Values{}), page+"?msg=account-saved")
		if got, _ := h.Store.AccountByID(ctx, owner.ID); got.Limits != (store.Limits{}) || len(got.Models) != 0 {
			t.Errorf("after clearing: %+v %v", got.Limits, got.Models)
		}

		wantRedirect(t, "disable", br.submit(page, page+"/disable", nil), page+"?msg=account-disabled")
		if got, _ := h.Store.AccountByID(ctx, owner.ID); !got.Disabled {
			t.Error("not disabled")
		}
		wantRedirect(t, "the disabled owner's session", ownerBrowser.get("/dashboard/keys"), "/dashboard/login?next=%2Fdashboard%2Fkeys")
		wantRedirect(t, "enable", br.submit(page, page+"/enable", nil), page+"?msg=account-enabled")
		if got, _ := h.Store.AccountByID(ctx, owner.ID); got.Disabled {
			t.Error("not enabled again")
		}

		self := "/dashboard/admin/accounts/" + op.ID
		wantStatus(t, "disable oneself", br.submit(self, self+"/disable", nil), http.StatusConflict)
		if got, _ := h.Store.AccountByID(ctx, op.ID); got.Disabled {
			t.Error("the operator disabled their own account")
		}
		for _, p := range []string{"/dashboard/admin/accounts/acct_nope", "/dashboard/admin/accounts/acct_nope/disable"} {
			var r response
			if strings.HasSuffix(p, "disable") {
				r = br.submit(self, p, nil)
			} else {
				r = br.get(p)
			}
			wantStatus(t, p, r, http.StatusNotFound)
		}
	})
}

// TestOperatorProvidersPage shows the configured providers without their
// keys, and each model's status as switchyard models gives it.
func TestOperatorProvidersPage(t *testing.T) {
	cfg := config.Default()
	cfg.Dev = true
	cfg.Providers = []config.Provider{
		{Name: "openai-main", Type: "openai", BaseURL: "https://api.openai.example/v1", APIKey: "sk-upstream-secret-value"},
		{Name: "local-vllm", Type: "openai_compatible", BaseURL: "https://user:basic-secret@vllm.example/v1?api-key=query-secret"},
	}
	routes := routesOf(t, &cfg)
	h := newHarness(t, storetest.Backend{Name: "sqlite", URL: storetest.SQLiteURL(t)}, func(o *dashboard.Options) {
		o.Routes, o.Providers = func() *route.Table { return routes }, cfg.Providers
	})
	br := h.browser(t)
	br.signIn(h.operator(t, "ops@example.com"))
	r := br.get("/dashboard/admin/providers")
	wantStatus(t, "providers page", r, http.StatusOK)
	for _, want := range []string{"openai-main", "https://api.openai.example/v1", "built in (serve --dev)",
		"<code>mock-chat</code>", "<code>gpt-5.4</code>", "unreachable", "retired"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("providers page lacks %q", want)
		}
	}
	for _, secret := range []string{"sk-upstream-secret-value", "basic-secret", "query-secret"} {
		if strings.Contains(r.Body, secret) {
			t.Errorf("the providers page shows the secret %q", secret)
		}
	}
	if !strings.Contains(r.Body, "vllm.example/v1") || !strings.Contains(r.Body, "Not set") {
		t.Error("the providers page lacks the second provider, or that it has no key")
	}
}

// routesOf builds the routing table of a configuration, as serve does.
func routesOf(t *testing.T, cfg *config.Config) *route.Table {
	t.Helper()
	routes, err := app.Routes(cfg, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

// regexpValue returns the first group of pattern in body.
func regexpValue(t *testing.T, body, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in\n%s", pattern, body)
	}
	return m[1]
}
