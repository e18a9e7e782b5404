package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

var (
	inputTag   = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idAttr     = regexp.MustCompile(`\bid="([^"]+)"`)
	typeHidden = regexp.MustCompile(`\btype="hidden"`)
	inlineJS   = regexp.MustCompile(`(?i)\son[a-z]+=|<script>|<script [^>]*>[^<]|javascript:`)
	styleAttr  = regexp.MustCompile(`(?i)\sstyle=|<style`)
)

// everyPageHarness serves a dashboard with every page on: sign-up, the
// providers page (the dev mock's routes) and rate-limit use, with usage
// seeded. Its store is the last backend: PostgreSQL when it is set, which
// refuses more (NUL, bytes that are not UTF-8) than SQLite.
func everyPageHarness(t *testing.T) (*harness, usageFixture) {
	t.Helper()
	bs := storetest.Backends(t)
	cfg := config.Default()
	cfg.Dev = true
	routes := routesOf(t, &cfg)
	h := newHarness(t, bs[len(bs)-1], func(o *dashboard.Options) {
		o.Config.AllowSignup, o.Routes = true, func() *route.Table { return routes }
		o.Rates = limits.NewRates(limits.NewMemory(nil))
	})
	return h, seedUsage(t, h)
}

// TestPages checks what every page must have: the security headers, one
// <main>, a label for every field, and no inline script or style (which
// the Content-Security-Policy would block anyway).
func TestPages(t *testing.T) {
	h, f := everyPageHarness(t)
	br := h.browser(t)
	br.signIn(f.owner)
	anon := h.browser(t)
	op := h.browser(t)
	op.signIn(h.operator(t, "ops@example.com"))
	pages := []struct {
		b    *browser
		path string
		form url.Values // POST this form (with the page's token) instead of GET
	}{
		{anon, "/dashboard/login", nil},
		{anon, "/dashboard/signup", nil},
		{anon, "/dashboard/nothing-here", nil},
		{br, "/dashboard", nil},
		{br, "/dashboard/keys?msg=key-revoked", nil},
		{br, "/dashboard/keys/new", nil},
		{br, "/dashboard/keys", url.Values{"name": {""}}},
		{br, "/dashboard/keys", url.Values{"name": {"x"}}},
		{br, "/dashboard/keys/" + f.ci.ID + "/revoke", nil},
		{br, "/dashboard/usage", nil},
		{br, "/dashboard/usage?by=key&since=2026-01-01", nil},
		{br, "/dashboard/usage?since=x", nil},
		{br, "/dashboard/limits", nil},
		{br, "/dashboard/alerts", nil},
		{br, "/dashboard/alerts", url.Values{"threshold": {"1"}, "webhook": {"https://hooks.example.com/x"}}},
		{br, "/dashboard/alerts", url.Values{"threshold": {"x"}}},
		{br, "/dashboard/password", nil},
		{br, "/dashboard/password", url.Values{"current": {"x"}}},
		{br, "/dashboard/keys/" + f.ci.ID + "/limits", nil},
		{br, "/dashboard/keys/" + f.ci.ID + "/limits", url.Values{"rpm": {"x"}}},
		{br, "/dashboard/admin/accounts", nil},
		{op, "/dashboard/admin/accounts", nil},
		{op, "/dashboard/admin/accounts", url.Values{"email": {"x"}}},
		{op, "/dashboard/admin/accounts", url.Values{"email": {"generated@example.com"}}},
		{op, "/dashboard/admin/accounts/" + f.owner.ID, nil},
		{op, "/dashboard/admin/accounts/" + f.owner.ID, url.Values{"rpm": {"x"}}},
		{op, "/dashboard/admin/accounts/" + f.owner.ID + "/password", url.Values{"password": {"x"}}},
		{op, "/dashboard/admin/accounts/" + f.owner.ID + "/keys/" + f.bot.ID + "/revoke", nil},
		{op, "/dashboard/admin/providers", nil},
	}
	for _, p := range pages {
		var r response
		if p.form != nil {
			r = p.b.submit("/dashboard/keys/new", p.path, p.form)
		} else {
			r = p.b.get(p.path)
		}
		name := p.path
		if p.form != nil {
			name = "POST " + name
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", name, csp)
		}
		if r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: headers %v", name, r.Header)
		}
		if n := strings.Count(r.Body, "<main"); n != 1 {
			t.Errorf("%s: %d <main> elements", name, n)
		}
		if inlineJS.MatchString(r.Body) || styleAttr.MatchString(r.Body) {
			t.Errorf("%s: inline script or style: %q %q", name, inlineJS.FindString(r.Body), styleAttr.FindString(r.Body))
		}
		for _, tag := range inputTag.FindAllString(r.Body, -1) {
			if typeHidden.MatchString(tag) {
				continue
			}
			id := idAttr.FindStringSubmatch(tag)
			if id == nil || !strings.Contains(r.Body, `<label for="`+id[1]+`"`) {
				t.Errorf("%s: field without a label: %s", name, tag)
			}
		}
	}
}

// TestCrossOrigin checks that a state change sent by another site is
// refused even when it carries a valid form token.
func TestCrossOrigin(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	a := h.account(t, "owner@example.com")
	k := h.key(t, a.ID, "ci")
	br := h.browser(t)
	br.signIn(a)
	token := br.csrf("/dashboard/keys/" + k.ID + "/revoke")
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
	} {
		req, _ := http.NewRequest("POST", h.URL+"/dashboard/keys/"+k.ID+"/revoke", strings.NewReader(url.Values{"csrf": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		r := br.do(req)
		wantStatus(t, "cross-origin revoke", r, http.StatusForbidden)
		if !strings.Contains(r.Body, "sent from another site") {
			t.Errorf("403 page:\n%s", r.Body)
		}
	}
	if got := h.Revoker.revoked(); len(got) != 0 {
		t.Errorf("revoked %v from another site", got)
	}
	// The same request from the dashboard's own page goes through.
	req, _ := http.NewRequest("POST", h.URL+"/dashboard/keys/"+k.ID+"/revoke", strings.NewReader(url.Values{"csrf": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", h.URL)
	wantRedirect(t, "same-origin revoke", br.do(req), "/dashboard/keys?msg=key-revoked")
}

func TestStatic(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	br := h.browser(t)
	login := br.get("/dashboard/login")
	css := regexp.MustCompile(`href="(/dashboard/static/app\.css\?v=[0-9a-f]+)"`).FindStringSubmatch(login.Body)
	js := regexp.MustCompile(`src="(/dashboard/static/app\.js\?v=[0-9a-f]+)"`).FindStringSubmatch(login.Body)
	if css == nil || js == nil {
		t.Fatalf("no versioned assets in:\n%s", login.Body)
	}
	tests := []struct {
		path, ctype, cache string
		status             int
	}{
		{css[1], "text/css; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{js[1], "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"/dashboard/static/app.css?v=old", "text/css; charset=utf-8", "no-cache", 200},
		{"/dashboard/static/nope.css", "text/html; charset=utf-8", "no-store", 404},
	}
	for _, tt := range tests {
		r := br.get(tt.path)
		if r.StatusCode != tt.status || r.Header.Get("Content-Type") != tt.ctype || r.Header.Get("Cache-Control") != tt.cache {
			t.Errorf("GET %s: %d %q %q, want %d %q %q", tt.path, r.StatusCode, r.Header.Get("Content-Type"),
				r.Header.Get("Cache-Control"), tt.status, tt.ctype, tt.cache)
		}
	}
}

// TestMount checks that the dashboard takes only its own paths from the
// API's listener, and that on a listener of its own "/" leads to it.
func TestMount(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "api "+r.URL.Path) })
	srv := httptest.NewServer(h.D.Mount(api))
	defer srv.Close()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		url, want string
	}{
		{srv.URL + "/v1/models", "api /v1/models"},
		{srv.URL + "/dashboardx", "api /dashboardx"},
		{srv.URL + "//v1/models", "api //v1/models"},
		{srv.URL + "/", "api /"},
		{srv.URL + "/dashboard/login", "<main"},
		{srv.URL + "/dashboard/", "301 /dashboard"},
		{srv.URL + "/dashboard", "303 /dashboard/login?next=%2Fdashboard"},
		{h.URL + "/", "302 /dashboard"},
		{h.URL + "/v1/models", "Not found"},
	}
	for _, tt := range tests {
		resp, err := noFollow.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(body)
		if resp.StatusCode/100 == 3 {
			got = resp.Status[:3] + " " + resp.Header.Get("Location")
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("GET %s: %q, want %q", tt.url, got, tt.want)
		}
	}
}
