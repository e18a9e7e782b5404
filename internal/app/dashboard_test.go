package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// dashboardClient is a browser: it keeps cookies and does not follow
// redirects.
type dashboardClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newDashboardClient(t *testing.T, base string) *dashboardClient {
	jar, _ := cookiejar.New(nil)
	return &dashboardClient{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (d *dashboardClient) get(path string) (*http.Response, string) {
	d.t.Helper()
	resp, err := d.c.Get(d.base + path)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// submit posts form to path with the CSRF token of the page at from.
func (d *dashboardClient) submit(from, path string, form url.Values) *http.Response {
	d.t.Helper()
	_, page := d.get(from)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		d.t.Fatalf("no form token on %s:\n%s", from, page)
	}
	form.Set("csrf", m[1])
	resp, err := d.c.PostForm(d.base+path, form)
	if err != nil {
		d.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestDashboardRevokeTakesEffectOnNextRequest signs in to the dashboard
// served beside the API and revokes a key there: the very next API
// request with it is refused, because the dashboard revokes through the
// serving process.
func TestDashboardRevokeTakesEffectOnNextRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		g := start(t, b.URL)
		key, id := g.newKey(t, "owner@example.com")
		hash, err := password.Hash("dashboard password")
		if err != nil {
			t.Fatal(err)
		}
		acct, _ := g.Store.AccountByEmail(context.Background(), "owner@example.com")
		if err := g.Store.SetPassword(context.Background(), acct.ID, hash); err != nil {
			t.Fatal(err)
		}
		hdr := map[string]string{"Authorization": "Bearer " + key}
		for range 3 { // warm the cache
			if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 200 {
				t.Fatalf("before revoke: %d %s", resp.StatusCode, raw)
			}
		}

		d := newDashboardClient(t, g.URL)
		resp := d.submit("/dashboard/login", "/dashboard/login", url.Values{"email": {"owner@example.com"}, "password": {"dashboard password"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard" {
			t.Fatalf("sign in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp = d.submit("/dashboard/keys/"+id+"/revoke", "/dashboard/keys/"+id+"/revoke", url.Values{})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/keys?msg=key-revoked" {
			t.Fatalf("revoke: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 401 {
			t.Fatalf("next request after revoke: %d %s", resp.StatusCode, raw)
		}
	})
}

// TestDashboardOperatorChangesApplyOnNextRequest has an operator change
// an account in the dashboard served beside the API: a new rate limit
// shows in the very next response's headers, a disable refuses the
// account's key on the very next request, and an enable lets it back.
func TestDashboardOperatorChangesApplyOnNextRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		g := startWith(t, b.URL, nil, func(c *config.Config) { c.Dev = true }) // the mock's models
		key, _ := g.newKey(t, "owner@example.com")
		owner, _ := g.Store.AccountByEmail(ctx, "owner@example.com")
		hash, err := password.Hash("operator password")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Store.CreateAccount(ctx, store.NewAccount{Email: "ops@example.com", PasswordHash: hash, IsAdmin: true}); err != nil {
			t.Fatal(err)
		}
		hdr := map[string]string{"Authorization": "Bearer " + key}
		for range 3 { // warm the cache
			if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 200 {
				t.Fatalf("before: %d %s", resp.StatusCode, raw)
			}
		}
		d := newDashboardClient(t, g.URL)
		d.submit("/dashboard/login", "/dashboard/login", url.Values{"email": {"ops@example.com"}, "password": {"operator password"}})
		page := "/dashboard/admin/accounts/" + owner.ID

		resp := d.submit(page, page, url.Values{"rpm": {"1234"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save limits: %d", resp.StatusCode)
		}
		body := `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`
		hdr["Content-Type"] = "application/json"
		if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, body); resp.StatusCode != 200 ||
			resp.Header.Get("X-Ratelimit-Limit-Requests") != "1234" {
			t.Fatalf("next request after the new limit: %d, limit header %q: %s", resp.StatusCode, resp.Header.Get("X-Ratelimit-Limit-Requests"), raw)
		}

		if resp := d.submit(page, page+"/disable", url.Values{}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("disable: %d", resp.StatusCode)
		}
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 401 {
			t.Fatalf("next request after disable: %d %s", resp.StatusCode, raw)
		}
		if resp := d.submit(page, page+"/enable", url.Values{}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("enable: %d", resp.StatusCode)
		}
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 200 {
			t.Fatalf("next request after enable: %d %s", resp.StatusCode, raw)
		}
	})
}

// TestDashboardListeners checks where the dashboard is served: beside
// the API by default, on its own listener when configured, nowhere when
// off; the API's paths are unchanged in every case.
func TestDashboardListeners(t *testing.T) {
	tests := []struct {
		name          string
		mut           func(*config.Config)
		onAPI, onOwn  bool
		wantOwnServer bool
	}{
		{"default", nil, true, false, false},
		{"own listener", func(c *config.Config) { c.Dashboard.Listen = "127.0.0.1:0" }, false, true, true},
		{"off", func(c *config.Config) { c.Dashboard.Enabled = false }, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := startWith(t, storetest.SQLiteURL(t), nil, tt.mut)
			resp, _, raw := do(t, "GET", g.URL+"/dashboard/login", nil, "")
			if got := resp.StatusCode == 200 && strings.Contains(raw, "<main"); got != tt.onAPI {
				t.Errorf("dashboard on the API's listener = %v, want %v (%d)", got, tt.onAPI, resp.StatusCode)
			}
			if !tt.onAPI && (resp.StatusCode != 404 || !strings.Contains(raw, `"unknown_url"`)) {
				t.Errorf("without the dashboard, /dashboard/login on the API: %d %s", resp.StatusCode, raw)
			}
			if resp, _, _ := do(t, "GET", g.URL+"/v1/models", nil, ""); resp.StatusCode != 401 {
				t.Errorf("/v1/models without a key: %d, want 401", resp.StatusCode)
			}
			addr := g.App.DashboardAddr()
			if (addr != nil) != tt.wantOwnServer {
				t.Fatalf("DashboardAddr() = %v", addr)
			}
			if addr == nil {
				return
			}
			own := newDashboardClient(t, "http://"+addr.String())
			if resp, body := own.get("/dashboard/login"); resp.StatusCode != 200 || !strings.Contains(body, "<main") {
				t.Errorf("dashboard on its own listener: %d", resp.StatusCode)
			}
			if resp, _ := own.get("/"); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/dashboard" {
				t.Errorf("/ on the dashboard's listener: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
			}
			if resp, _ := own.get("/v1/models"); resp.StatusCode != 404 {
				t.Errorf("/v1/models on the dashboard's listener: %d, want 404", resp.StatusCode)
			}
		})
	}
}
