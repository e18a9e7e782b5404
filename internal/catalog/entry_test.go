package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithOverridesBuiltin(t *testing.T) {
	base := builtin(t)
	before, _ := base.Lookup("gpt-4o")
	beforeCopy := *before
	azure := []Deployment{{Provider: "azure-east", UpstreamID: "gpt-4o-prod"}, {Provider: "openai", UpstreamID: "gpt-4o"}}
	c, err := base.With([]Entry{
		{ID: "gpt-4o", Deployments: azure, OutputPrice: 12_000_000, Vision: true},
		{ID: "claude-haiku-4-5", ContextWindow: 100_000},
		{ID: "claude-haiku-4-5", MaxOutputTokens: 1000}, // applies on top of the entry before
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := c.Lookup("gpt-4o")
	want := beforeCopy
	want.Deployments = azure
	want.OutputPrice = 12_000_000
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("overridden gpt-4o (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&beforeCopy, before); diff != "" {
		t.Errorf("With changed the receiver's gpt-4o (-want +got):\n%s", diff)
	}
	azure[0].Provider = "changed-later"
	if got.Deployments[0].Provider != "azure-east" {
		t.Error("the catalogue shares the entry's deployments slice")
	}
	haiku, _ := c.Lookup("claude-haiku-4-5")
	if haiku.ContextWindow != 100_000 || haiku.MaxOutputTokens != 1000 || haiku.InputPrice != 1_000_000 {
		t.Errorf("claude-haiku-4-5: context %d, max output %d, input %v; want 100000, 1000, 1",
			haiku.ContextWindow, haiku.MaxOutputTokens, haiku.InputPrice)
	}
	if len(c.All()) != len(base.All()) {
		t.Errorf("overrides changed the model count: %d, want %d", len(c.All()), len(base.All()))
	}
}

func TestWithAddsModel(t *testing.T) {
	base := builtin(t)
	c, err := base.With([]Entry{{
		ID: "acme-7b", Mode: ModeChat, InputPrice: 100_000, OutputPrice: 200_000, Functions: true,
		Deployments: []Deployment{{Provider: "local-vllm", UpstreamID: "acme/7b-instruct"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := &Model{
		ID: "acme-7b", Provider: "local-vllm", UpstreamID: "acme/7b-instruct", Mode: ModeChat,
		InputPrice: 100_000, OutputPrice: 200_000, Functions: true,
		Deployments: []Deployment{{Provider: "local-vllm", UpstreamID: "acme/7b-instruct"}},
	}
	got, ok := c.Lookup("acme-7b")
	if !ok {
		t.Fatal("added model not found")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("added model (-want +got):\n%s", diff)
	}
	if got.OwnedBy() != "local-vllm" {
		t.Errorf("OwnedBy() = %q, want the provider when there is no family", got.OwnedBy())
	}
	all := c.All()
	if len(all) != len(base.All())+1 || all[len(all)-1] != got {
		t.Error("added model is not last in All")
	}
	if _, ok := base.Lookup("acme-7b"); ok {
		t.Error("With added the model to the receiver")
	}
}

func TestWithErrors(t *testing.T) {
	base := builtin(t)
	ok := Entry{ID: "gpt-4o", InputPrice: 1}
	dep := []Deployment{{Provider: "p", UpstreamID: "u"}}
	tests := []struct {
		name  string
		entry Entry
		want  string
	}{
		{"no id", Entry{Mode: ModeChat, Deployments: dep}, "models.add[1]: id is required"},
		{"space in id", Entry{ID: "my model", Mode: ModeChat, Deployments: dep}, `models.add[1]: id "my model" contains white space`},
		{"bad mode", Entry{ID: "x", Mode: "image", Deployments: dep}, "models.add[1]: mode must be chat, completion or embedding"},
		{"bad mode on builtin", Entry{ID: "gpt-4o", Mode: "Chat"}, "models.add[1]: mode must be chat, completion or embedding"},
		{"new without mode", Entry{ID: "x", Deployments: dep}, `models.add[1]: new model "x" needs a mode`},
		{"new without deployment", Entry{ID: "x", Mode: ModeChat}, `models.add[1]: new model "x" needs at least one deployment`},
		{"deployment without provider", Entry{ID: "gpt-4o", Deployments: []Deployment{{UpstreamID: "u"}}}, "models.add[1]: deployments[0]: provider is required"},
		{"deployment without upstream", Entry{ID: "x", Mode: ModeChat, Deployments: []Deployment{{Provider: "p"}, {Provider: "q"}}}, "models.add[1]: deployments[0]: upstream_id is required"},
		{"negative price", Entry{ID: "gpt-4o", InputPrice: -1}, "models.add[1]: input_usd_per_mtok must not be negative"},
		{"negative context", Entry{ID: "gpt-4o", ContextWindow: -1}, "models.add[1]: context_window must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := base.With([]Entry{ok, tt.entry})
			if err == nil {
				t.Fatalf("With = %d models, want error %q", len(c.All()), tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("With error = %q, want it to start with %q", err, tt.want)
			}
		})
	}
	if m, _ := base.Lookup("gpt-4o"); m.InputPrice != 2_500_000 {
		t.Errorf("a failed With changed the receiver: gpt-4o input price %v", m.InputPrice)
	}
}

// TestCachedPrice: a cached prompt token costs the model's cache price,
// or its input price when the model has none, or when a configured input
// price is below the built-in cache price; configuration can set it.
func TestCachedPrice(t *testing.T) {
	base := builtin(t)
	c, err := base.With([]Entry{
		{ID: "gpt-4.1", InputPrice: 300_000},      // below the built-in cache price of 0.5
		{ID: "gpt-4o-mini", CachedPrice: 50_000},  // a negotiated cache price
		{ID: "o3", InputPrice: 1_000_000},         // still above the cache price
		{ID: "gpt-5", CachedPrice: 0},             // zero leaves it as it is
		{ID: "claude-opus-5", CachedPrice: 1_000}, // a model without one gets one
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cat   *Catalog
		id    string
		price Price
	}{
		{base, "gpt-4o", 1_250_000},
		{base, "gemini-2.5-flash", 30_000},
		{base, "claude-haiku-4-5-20251001", 100_000},
		{base, "llama-3.3-70b-instruct", 0}, // none: the input price
		{c, "gpt-4.1", 300_000},
		{c, "gpt-4o-mini", 50_000},
		{c, "o3", 500_000},
		{c, "gpt-5", 125_000},
		{c, "claude-opus-5", 1_000},
	} {
		m, ok := tt.cat.Lookup(tt.id)
		if !ok {
			t.Fatalf("no %s", tt.id)
		}
		want := tt.price
		if want == 0 {
			want = m.InputPrice
		}
		if got := m.CachedPrice(); got != want {
			t.Errorf("%s: CachedPrice %v, want %v", tt.id, got, want)
		}
	}
	if base.PriceVersion() == c.PriceVersion() {
		t.Error("a changed cache price kept the price version")
	}
	if _, err := base.With([]Entry{{ID: "gpt-4o", CachedPrice: -1}}); err == nil || !strings.Contains(err.Error(), "cached_input_usd_per_mtok") {
		t.Errorf("negative cache price: %v", err)
	}
}

// TestPricesFor: a request whose prompt is over a model's long-context
// threshold pays the long-context prices for all of it; configured prices
// replace the built-in long-context ones.
func TestPricesFor(t *testing.T) {
	base := builtin(t)
	c, err := base.With([]Entry{{ID: "gemini-2.5-pro", InputPrice: 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cat    *Catalog
		id     string
		prompt int64
		want   Prices
	}{
		{base, "gpt-5.4", 272_000, Prices{Input: 2_500_000, Cached: 250_000, Output: 15_000_000}},
		{base, "gpt-5.4", 272_001, Prices{Input: 5_000_000, Cached: 500_000, Output: 22_500_000}},
		{base, "gemini-2.5-pro", 200_001, Prices{Input: 2_500_000, Cached: 250_000, Output: 15_000_000}},
		{base, "claude-sonnet-4-20250514", 250_000, Prices{Input: 6_000_000, Cached: 6_000_000, Output: 22_500_000}},
		{base, "claude-sonnet-4-5", 250_000, Prices{Input: 6_000_000, Cached: 600_000, Output: 22_500_000}},
		{base, "gpt-4o", 1_000_000, Prices{Input: 2_500_000, Cached: 1_250_000, Output: 10_000_000}},
		{c, "gemini-2.5-pro", 500_000, Prices{Input: 1_000_000, Cached: 125_000, Output: 10_000_000}},
	} {
		m, ok := tt.cat.Lookup(tt.id)
		if !ok {
			t.Fatalf("no %s", tt.id)
		}
		if got := m.PricesFor(tt.prompt); got != tt.want {
			t.Errorf("%s with %d prompt tokens: %+v, want %+v", tt.id, tt.prompt, got, tt.want)
		}
	}
}
