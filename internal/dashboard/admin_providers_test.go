package dashboard_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// fakeHealth is a DeploymentHealth with set states; a key it has no state
// for is healthy, as with health.Tracker.
type fakeHealth struct {
	states map[string]health.State

	mu    sync.Mutex
	asked [][]string
}

func (f *fakeHealth) Snapshot(keys []string) []health.State {
	f.mu.Lock()
	f.asked = append(f.asked, slices.Clone(keys))
	f.mu.Unlock()
	out := make([]health.State, 0, len(keys))
	for _, k := range keys {
		st, ok := f.states[k]
		if !ok {
			st = health.State{Key: k}
		}
		out = append(out, st)
	}
	return out
}

// hostileProvider is a provider name that markup would break on; the
// configuration does not allow it, the page must escape it anyway.
const hostileProvider = `east<script>alert(1)</script>`

// deploymentsFixture is a routing table of three models on two providers,
// one with a hostile name and credentials in its base URL, and the
// configuration of those providers.
func deploymentsFixture(t *testing.T) (*route.Table, []config.Provider) {
	t.Helper()
	cfg := []config.Provider{
		{Name: hostileProvider, Type: "openai_compatible", BaseURL: "https://user:url-secret@east.example/v1?key=query-secret", APIKey: "sk-east-secret"},
		{Name: "west", Type: "openai_compatible", BaseURL: "https://west.example/v1", APIKey: "sk-west-secret"},
	}
	var provs []provider.Provider
	for _, p := range cfg {
		provs = append(provs, openai.New(openai.Options{Name: p.Name, Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey}))
	}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, err = cat.With([]catalog.Entry{
		{ID: "zz-quiet", Mode: catalog.ModeChat, Deployments: []catalog.Deployment{{Provider: "west", UpstreamID: "quiet-west"}}},
		{ID: "chat-a", Mode: catalog.ModeChat, Strategy: catalog.StrategyLeastBusy, Fallbacks: []string{"zz-quiet"},
			ContextWindowFallbacks: []string{"chat-long"},
			Deployments: []catalog.Deployment{
				{Provider: hostileProvider, UpstreamID: "a-east", Weight: 3},
				{Provider: "west", UpstreamID: "a-west", Priority: 1},
			}},
		{ID: "chat-long", Mode: catalog.ModeChat, Deployments: []catalog.Deployment{{Provider: "west", UpstreamID: "long-west"}}},
		{ID: "gone", Mode: catalog.ModeChat, Deployments: []catalog.Deployment{{Provider: "nowhere", UpstreamID: "gone-up"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return route.New(cat, provs, func() time.Time { return now }), cfg
}

// providersHarness serves a dashboard with the fixture's routing table
// and h as its health (nil for none).
func providersHarness(t *testing.T, h dashboard.DeploymentHealth) *harness {
	t.Helper()
	routes, cfg := deploymentsFixture(t)
	return newHarness(t, storetest.Backend{Name: "sqlite", URL: storetest.SQLiteURL(t)}, func(o *dashboard.Options) {
		o.Routes, o.Providers, o.Health = func() *route.Table { return routes }, cfg, h
	})
}

// providersPage serves the page to a signed-in operator, with h as the
// dashboard's health (nil for none).
func providersPage(t *testing.T, h dashboard.DeploymentHealth) string {
	t.Helper()
	hs := providersHarness(t, h)
	br := hs.browser(t)
	br.signIn(hs.operator(t, "ops@example.com"))
	r := br.get("/dashboard/admin/providers")
	wantStatus(t, "providers page", r, http.StatusOK)
	return r.Body
}

// TestProvidersPageDeploymentHealth shows each deployment's state: a
// cooling one with its end and cause, a healthy one as healthy, with
// failures in the window, calls in flight, latency and error classes;
// models with trouble come first.
func TestProvidersPageDeploymentHealth(t *testing.T) {
	fh := &fakeHealth{states: map[string]health.State{
		hostileProvider + "/a-east": {Key: hostileProvider + "/a-east", CoolingUntil: now.Add(25 * time.Second),
			Reason: health.ClassRateLimit, FailuresInWindow: 1, RecentErrors: []health.ClassCount{{Class: "rate_limit", Count: 1}}},
		"west/a-west": {Key: "west/a-west", FailuresInWindow: 4, InFlight: 7, LatencyEWMA: 420 * time.Millisecond,
			RecentErrors: []health.ClassCount{{Class: "unavailable", Count: 3}, {Class: "timeout", Count: 1}}},
		"west/long-west": {Key: "west/long-west", CoolingUntil: now.Add(26 * time.Hour), Reason: health.ReasonFailures,
			FailuresInWindow: 3, RecentErrors: []health.ClassCount{{Class: "reset", Count: 3}}},
		// A cooldown that has ended (the tracker's clock ahead of the
		// dashboard's) is no cooldown.
		"west/quiet-west": {Key: "west/quiet-west", CoolingUntil: now.Add(-time.Second), Reason: health.ReasonFailures},
	}}
	body := providersPage(t, fh)

	tests := []struct {
		row  string // the deployment's upstream ID starts its row
		want []string
	}{
		{"a-east", []string{"cooling until 15:30:25 UTC", "rate limited", "rate_limit ×1"}},
		{"a-west", []string{">healthy<", ">4<", ">7<", "420 ms", "unavailable ×3, timeout ×1"}},
		{"long-west", []string{"cooling until 2026-11-23 17:30:00 UTC", "failures", "reset ×3"}},
		{"quiet-west", []string{">healthy<"}},
	}
	for _, tt := range tests {
		row := tableRow(t, body, "<code>"+tt.row+"</code>")
		for _, w := range tt.want {
			if !strings.Contains(row, w) {
				t.Errorf("row of %s lacks %q:\n%s", tt.row, w, row)
			}
		}
	}
	for _, healthy := range []string{"<code>a-west</code>", "<code>quiet-west</code>"} {
		if row := tableRow(t, body, healthy); strings.Contains(row, "cooling") {
			t.Errorf("a healthy deployment shows as cooling:\n%s", row)
		}
	}

	from, to := strings.Index(body, "<h2>Deployments</h2>"), strings.Index(body, "<h2>Models</h2>")
	if from < 0 || to < from {
		t.Fatalf("no Deployments section before the Models:\n%s", body)
	}
	deps := body[from:to]
	for _, w := range []string{"least-busy", "<code>zz-quiet</code>", "<code>chat-long</code>", "weighted"} {
		if !strings.Contains(deps, w) {
			t.Errorf("deployments lack %q", w)
		}
	}
	if strings.Contains(deps, "gone-up") {
		t.Error("the deployments list an unreachable model's")
	}
	a, long, quiet := strings.Index(deps, "a-east"), strings.Index(deps, "long-west"), strings.Index(deps, "quiet-west")
	if a < 0 || long < 0 || quiet < 0 || quiet < a || quiet < long {
		t.Errorf("the healthy model is not after the troubled ones: chat-a at %d, chat-long at %d, zz-quiet at %d", a, long, quiet)
	}
	if len(fh.asked) != 1 {
		t.Errorf("health asked %d times, want once for the page", len(fh.asked))
	} else if got := fh.asked[0]; !slices.Contains(got, "west/quiet-west") || slices.Contains(got, "nowhere/gone-up") {
		t.Errorf("health asked about %v", got)
	}
}

// TestProvidersPageEscapesAndRedacts shows a provider's name as text, never
// as markup, and neither its key nor the credentials of its base URL.
func TestProvidersPageEscapesAndRedacts(t *testing.T) {
	for _, h := range []dashboard.DeploymentHealth{nil, &fakeHealth{}} {
		body := providersPage(t, h)
		if strings.Contains(body, "<script>alert(1)") {
			t.Error("a provider's name is rendered as markup")
		}
		if !strings.Contains(body, "east&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("the page lacks the escaped provider name")
		}
		for _, secret := range []string{"sk-east-secret", "sk-west-secret", "url-secret", "query-secret"} {
			if strings.Contains(body, secret) {
				t.Errorf("the page shows the secret %q", secret)
			}
		}
	}
}

// TestProvidersPageWithoutHealth lists the deployments and says that their
// health is not tracked.
func TestProvidersPageWithoutHealth(t *testing.T) {
	body := providersPage(t, nil)
	for _, w := range []string{"health not tracked", "<code>a-east</code>", "<code>quiet-west</code>"} {
		if !strings.Contains(body, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(body, ">healthy<") || strings.Contains(body, "cooling") {
		t.Error("the page shows a health it does not know")
	}
}

// TestProvidersPageFollowsReload shows the routing table the getter
// returns now, as after a SIGHUP reload, and says that one is possible.
func TestProvidersPageFollowsReload(t *testing.T) {
	first, cfg := deploymentsFixture(t)
	var mu sync.Mutex
	current := first
	h := newHarness(t, storetest.Backend{Name: "sqlite", URL: storetest.SQLiteURL(t)}, func(o *dashboard.Options) {
		o.Providers = cfg
		o.Routes = func() *route.Table {
			mu.Lock()
			defer mu.Unlock()
			return current
		}
	})
	br := h.browser(t)
	br.signIn(h.operator(t, "ops@example.com"))
	body := br.get("/dashboard/admin/providers").Body
	if !strings.Contains(body, "a-east") || !strings.Contains(body, "SIGHUP") {
		t.Fatalf("the first table or the word on reloading is missing:\n%s", body)
	}
	if strings.Contains(body, "a change needs a restart") {
		t.Error("the page still says a change needs a restart")
	}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, err = cat.With([]catalog.Entry{{ID: "reloaded", Mode: catalog.ModeChat,
		Deployments: []catalog.Deployment{{Provider: "west", UpstreamID: "reloaded-west"}}}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	current = route.New(cat, []provider.Provider{openai.New(openai.Options{Name: "west", Type: "openai_compatible"})}, func() time.Time { return now })
	mu.Unlock()
	body = br.get("/dashboard/admin/providers").Body
	if !strings.Contains(body, "<code>reloaded-west</code>") || strings.Contains(body, "a-east") {
		t.Error("the page does not show the table after the reload")
	}
}

// TestProvidersPageRefusesOwners keeps the deployments, their health and
// the providers from anyone but an operator.
func TestProvidersPageRefusesOwners(t *testing.T) {
	fh := &fakeHealth{}
	h := providersHarness(t, fh)
	br := h.browser(t)
	br.signIn(h.account(t, "owner@example.com"))
	r := br.get("/dashboard/admin/providers")
	wantStatus(t, "owner", r, http.StatusForbidden)
	for _, w := range []string{"a-east", "west.example", "Deployments"} {
		if strings.Contains(r.Body, w) {
			t.Errorf("an owner sees %q", w)
		}
	}
	if len(fh.asked) != 0 {
		t.Error("health was asked for an owner")
	}
}
