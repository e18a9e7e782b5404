package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/config"
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
