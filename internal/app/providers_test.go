package app_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// TestRoutesConfiguredPrices: models.add sets a model's prices, the cache
// price included, and a bad price names its field.
func TestRoutesConfiguredPrices(t *testing.T) {
	cfg := config.Default()
	cfg.Models.Add = []config.ModelEntry{
		{ID: "gpt-4o", InputUSDPerMtok: "2", CachedUSDPerMtok: "0.2"},
		{ID: "acme-7b", Mode: "chat", InputUSDPerMtok: "0.1", OutputUSDPerMtok: "0.2",
			Deployments: []config.DeploymentEntry{{Provider: "openai", UpstreamID: "acme/7b"}}},
	}
	routes, err := app.Routes(&cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][2]string{"gpt-4o": {"2", "0.2"}, "acme-7b": {"0.1", "0.1"}} {
		m, ok := routes.Catalog().Lookup(id)
		if !ok {
			t.Fatalf("no %s", id)
		}
		if m.InputPrice.String() != want[0] || m.CachedPrice().String() != want[1] {
			t.Errorf("%s: input %v, cached %v; want %s, %s", id, m.InputPrice, m.CachedPrice(), want[0], want[1])
		}
	}
	cfg.Models.Add = []config.ModelEntry{{ID: "gpt-4o", CachedUSDPerMtok: "cheap"}}
	if _, err := app.Routes(&cfg, time.Now); err == nil || !strings.Contains(err.Error(), "models.add[0].cached_input_usd_per_mtok") {
		t.Errorf("a bad cache price: %v", err)
	}
}

// TestRoutesConfigDeployments: the contract reaches the routing
// table: weights, priorities, timeouts, strategy and fallbacks.
func TestRoutesConfigDeployments(t *testing.T) {
	cfg := config.Default()
	cfg.Providers = []config.Provider{
		{Name: "east", Type: config.TypeOpenAICompatible, BaseURL: "http://127.0.0.1:9/v1", FirstByteTimeout: 30 * time.Second, Timeout: 10 * time.Minute},
		{Name: "west", Type: config.TypeOpenAICompatible, BaseURL: "http://127.0.0.1:9/v1"},
	}
	cfg.Models.Add = []config.ModelEntry{{
		ID: "gpt-4o-mini", Strategy: "latency",
		Deployments: []config.DeploymentEntry{
			{Provider: "east", UpstreamID: "gpt-4o-mini", Weight: 3},
			{Provider: "west", UpstreamID: "gpt-4o-mini-2024-07-18", Weight: 1, Priority: 1,
				FirstByteTimeout: 5 * time.Second, Timeout: time.Minute},
		},
		Fallbacks:              []string{"claude-haiku-4-5", "gemini-2.5-flash"},
		ContextWindowFallbacks: []string{"gpt-4.1-mini"},
	}}
	routes, err := app.Routes(&cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	m, err := routes.Lookup("gpt-4o-mini", route.Allow{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Strategy != catalog.StrategyLatency || !slices.Equal(m.Fallbacks, []string{"claude-haiku-4-5", "gemini-2.5-flash"}) ||
		!slices.Equal(m.ContextWindowFallbacks, []string{"gpt-4.1-mini"}) {
		t.Errorf("strategy %q, fallbacks %v, context window fallbacks %v", m.Strategy, m.Fallbacks, m.ContextWindowFallbacks)
	}
	var got []catalog.Deployment
	for _, d := range routes.Deployments(m) {
		got = append(got, d.Deployment)
	}
	want := []catalog.Deployment{
		// The provider's timeouts, as config.Load fills them.
		{Provider: "east", UpstreamID: "gpt-4o-mini", Weight: 3, FirstByteTimeout: 30 * time.Second, Timeout: 10 * time.Minute},
		{Provider: "west", UpstreamID: "gpt-4o-mini-2024-07-18", Weight: 1, Priority: 1, FirstByteTimeout: 5 * time.Second, Timeout: time.Minute},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deployments (-want +got):\n%s", diff)
	}
}

// TestRoutesConfigFallbacks: a fallback must be a catalogue model that
// answers the same requests; a mistyped one is refused at start with the
// close IDs named.
func TestRoutesConfigFallbacks(t *testing.T) {
	tests := []struct {
		name string
		add  config.ModelEntry
		want []string // substrings of the error; none: accepted
	}{
		{"catalogue models", config.ModelEntry{ID: "gpt-4o-mini", Fallbacks: []string{"claude-haiku-4-5", "gemini-2.5-flash"}}, nil},
		{"a configured model", config.ModelEntry{ID: "gpt-4o-mini", Fallbacks: []string{"mock-chat"}}, nil},
		{"an instruct model behind chat", config.ModelEntry{ID: "gpt-3.5-turbo-instruct", Fallbacks: []string{"gpt-4o-mini"}}, nil},
		{"mistyped", config.ModelEntry{ID: "gpt-4o-mini", Fallbacks: []string{"claude-haiku-4-5", "claude-haiku-4.5"}},
			[]string{`models.add[0].fallbacks[1]: "claude-haiku-4.5" is not a model in the catalogue`, "did you mean claude-haiku-4-5"}},
		{"unknown, nothing close", config.ModelEntry{ID: "gpt-4o-mini", ContextWindowFallbacks: []string{"zzzzzzzzzzzz"}},
			[]string{`models.add[0].context_window_fallbacks[0]: "zzzzzzzzzzzz" is not a model`}},
		{"embedding behind chat", config.ModelEntry{ID: "gpt-4o-mini", Fallbacks: []string{"text-embedding-3-small"}},
			[]string{"models.add[0].fallbacks[0]", "text-embedding-3-small is an embedding model"}},
		{"chat behind embedding", config.ModelEntry{ID: "text-embedding-3-small", Fallbacks: []string{"gpt-4o-mini"}},
			[]string{"models.add[0].fallbacks[0]", "gpt-4o-mini is a chat model"}},
		{"instruct behind chat", config.ModelEntry{ID: "gpt-4o-mini", Fallbacks: []string{"gpt-3.5-turbo-instruct"}},
			[]string{"models.add[0].fallbacks[0]", "gpt-3.5-turbo-instruct is a completion model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Dev = true
			cfg.Models.Add = []config.ModelEntry{tt.add}
			_, err := app.Routes(&cfg, time.Now)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want an error with %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
