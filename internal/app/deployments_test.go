package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestDeploymentCoolsDown: of two deployments of one model, the one that
// fails every call is retried past (no client sees an error) and, after
// allowed_fails failures, cools down: it gets no more calls.
func TestDeploymentCoolsDown(t *testing.T) {
	east := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(east.Close)
	west := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(west.Close)
	east.SetFaults(fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: 1, Status: 503}}})
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"EAST_KEY": "test-upstream-key", "WEST_KEY": "test-upstream-key"},
		func(c *config.Config) {
			c.Providers = append(c.Providers,
				config.Provider{Type: config.TypeOpenAICompatible, Name: "east", BaseURL: east.URL, APIKey: "test-upstream-key"},
				config.Provider{Type: config.TypeOpenAICompatible, Name: "west", BaseURL: west.URL, APIKey: "test-upstream-key"})
			c.Models.Add = append(c.Models.Add, config.ModelEntry{ID: "gpt-4o-mini", Deployments: []config.DeploymentEntry{
				{Provider: "east", UpstreamID: "gpt-4o-mini", Weight: 1000}, {Provider: "west", UpstreamID: "gpt-4o-mini", Weight: 1}}})
		})
	key, _ := g.newKey(t, "cool@example.com")
	for i := range 20 {
		resp, eb, _ := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("gpt-4o-mini", "hi", i%2 == 1))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, eb.Error)
		}
		if got := resp.Header.Get("X-Switchyard-Deployment"); got != "west" {
			t.Errorf("request %d answered by %q, want west", i, got)
		}
	}
	if n := east.Calls(); n != 3 {
		t.Errorf("east got %d calls, want 3: allowed_fails, then none while it cools", n)
	}
	if n := west.Calls(); n != 20 {
		t.Errorf("west got %d calls, want 20", n)
	}
}

// TestDeploymentTimeoutOverridesProvider: a deployment's own timeout
// replaces its provider's, longer as well as shorter.
func TestDeploymentTimeoutOverridesProvider(t *testing.T) {
	slow := fakeopenai.Start(fakeopenai.Options{Latency: 400 * time.Millisecond})
	t.Cleanup(slow.Close)
	g := startWith(t, storetest.SQLiteURL(t), nil, func(c *config.Config) {
		c.Providers = append(c.Providers, config.Provider{Type: config.TypeOpenAICompatible, Name: "slow", BaseURL: slow.URL,
			APIKey: "test-upstream-key", Timeout: 100 * time.Millisecond})
		c.Routing.Retries = 0
		c.Models.Add = append(c.Models.Add,
			config.ModelEntry{ID: "gpt-4o-mini", Deployments: []config.DeploymentEntry{{Provider: "slow", UpstreamID: "gpt-4o-mini", Timeout: 5 * time.Second}}},
			config.ModelEntry{ID: "gpt-4o", Deployments: []config.DeploymentEntry{{Provider: "slow", UpstreamID: "gpt-4o"}}})
	})
	key, _ := g.newKey(t, "timeouts@example.com")
	for model, want := range map[string]int{"gpt-4o-mini": http.StatusOK, "gpt-4o": http.StatusGatewayTimeout} {
		for _, stream := range []bool{false, true} {
			resp, eb, _ := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody(model, "hi", stream))
			if resp.StatusCode != want {
				t.Errorf("%s stream %t: %d %v, want %d", model, stream, resp.StatusCode, eb.Error, want)
			}
		}
	}
}
