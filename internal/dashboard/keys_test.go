package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

var newKeyField = regexp.MustCompile(`id="new-key" value="([^"]+)"`)

func TestCreateKey(t *testing.T) {
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
			{"no name", url.Values{"name": {"  "}}, "name", "Give the key a name"},
			{"long name", url.Values{"name": {strings.Repeat("n", 101)}}, "name", "at most 100 characters"},
			{"bad model", url.Values{"name": {"ci"}, "models": {"gpt-4o, *mini"}}, "models", "“*mini” is not a model ID"},
			{"bad rpm", url.Values{"name": {"ci"}, "rpm": {"-1"}}, "rpm", "Enter a whole number"},
			{"bad tpm", url.Values{"name": {"ci"}, "tpm": {"1.5"}}, "tpm", "Enter a whole number"},
			{"bad budget", url.Values{"name": {"ci"}, "budget": {"1e3"}}, "budget", "Enter an amount in US dollars"},
		}
		for _, tt := range invalid {
			r := br.submit("/dashboard/keys/new", "/dashboard/keys", tt.form)
			wantStatus(t, tt.name, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, tt.want) || !strings.Contains(r.Body, `id="`+tt.field+`-error"`) {
				t.Errorf("%s: no error %q on field %s:\n%s", tt.name, tt.want, tt.field, r.Body)
			}
			if !strings.Contains(r.Body, `value="`+tt.form.Get("name")+`"`) && strings.TrimSpace(tt.form.Get("name")) != "" {
				t.Errorf("%s: the typed name is lost", tt.name)
			}
		}
		if keys, _ := h.Store.ListKeys(ctx, a.ID); len(keys) != 0 {
			t.Fatalf("invalid forms created %d keys", len(keys))
		}

		r := br.submit("/dashboard/keys/new", "/dashboard/keys", url.Values{"name": {" CI pipeline "}, "models": {"gpt-4o-mini, claude-*"},
			"rpm": {"30"}, "tpm": {""}, "budget": {"12.50"}})
		wantStatus(t, "create", r, http.StatusOK)
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", cc)
		}
		m := newKeyField.FindStringSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no key on the page:\n%s", r.Body)
		}
		full := m[1]
		if !strings.Contains(r.Body, "It cannot be shown again") || !strings.Contains(r.Body, `data-copy="new-key"`) {
			t.Errorf("no warning or copy button:\n%s", r.Body)
		}
		hash, err := apikey.Parse(full)
		if err != nil || !strings.HasPrefix(full, apikey.Prefix) {
			t.Fatalf("shown key %q: %v", full, err)
		}
		ka, err := h.Store.LookupKey(ctx, hash.String())
		if err != nil {
			t.Fatal(err)
		}
		want := store.KeyAuth{KeyID: ka.KeyID, AccountID: a.ID, KeyModels: []string{"gpt-4o-mini", "claude-*"},
			KeyLimits: store.Limits{RPM: 30, MonthlyBudget: 12*usd.USD + 50*usd.Cent}}
		if diff := cmp.Diff(want, ka); diff != "" {
			t.Errorf("stored key (-want +got):\n%s", diff)
		}
		k, _ := h.Store.KeyByID(ctx, ka.KeyID)
		if k.Name != "CI pipeline" || k.Hint != apikey.Hint(full) {
			t.Errorf("stored name %q, hint %q", k.Name, k.Hint)
		}

		// The list shows the hint, never the key.
		list := br.get("/dashboard/keys")
		wantStatus(t, "list", list, http.StatusOK)
		if strings.Contains(list.Body, full) || strings.Contains(list.Body, full[len(apikey.Prefix):]) {
			t.Error("the key list shows the key")
		}
		for _, s := range []string{"CI pipeline", k.Hint, "Active", "/dashboard/keys/" + k.ID + "/revoke"} {
			if !strings.Contains(list.Body, s) {
				t.Errorf("key list lacks %q", s)
			}
		}
	})
}

func TestRevokeKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		h := newHarness(t, b, nil)
		a := h.account(t, "owner@example.com")
		k := h.key(t, a.ID, "old laptop")
		br := h.browser(t)
		br.signIn(a)

		confirm := br.get("/dashboard/keys/" + k.ID + "/revoke")
		wantStatus(t, "confirmation", confirm, http.StatusOK)
		if !strings.Contains(confirm.Body, "is permanent") || !strings.Contains(confirm.Body, "old laptop") {
			t.Errorf("confirmation page:\n%s", confirm.Body)
		}
		if got, _ := h.Store.KeyByID(ctx, k.ID); got.Status != store.KeyActive {
			t.Fatal("showing the confirmation revoked the key")
		}
		wantStatus(t, "revoke without the token", br.post("/dashboard/keys/"+k.ID+"/revoke", url.Values{"csrf": {"no"}}), http.StatusForbidden)

		r := br.submit("/dashboard/keys/"+k.ID+"/revoke", "/dashboard/keys/"+k.ID+"/revoke", nil)
		wantRedirect(t, "revoke", r, "/dashboard/keys?msg=key-revoked")
		if got := h.Revoker.revoked(); !cmp.Equal(got, []string{k.ID}) {
			t.Errorf("revoker called with %v, want [%s]", got, k.ID)
		}
		if got, _ := h.Store.KeyByID(ctx, k.ID); got.Status != store.KeyRevoked {
			t.Errorf("key status %q after revoke", got.Status)
		}
		list := br.get("/dashboard/keys?msg=key-revoked")
		if !strings.Contains(list.Body, "The key was revoked.") || !strings.Contains(list.Body, `class="status-revoked">Revoked 2`) ||
			strings.Contains(list.Body, "/dashboard/keys/"+k.ID+"/revoke") {
			t.Errorf("list after revoke:\n%s", list.Body)
		}
		// Again: already revoked, nothing else happens.
		wantRedirect(t, "confirmation of a revoked key", br.get("/dashboard/keys/"+k.ID+"/revoke"), "/dashboard/keys?msg=already-revoked")
		r = br.submit("/dashboard/keys", "/dashboard/keys/"+k.ID+"/revoke", nil)
		wantRedirect(t, "revoke again", r, "/dashboard/keys?msg=already-revoked")
		wantStatus(t, "unknown key", br.get("/dashboard/keys/key_nosuchkey/revoke"), http.StatusNotFound)
	})
}
