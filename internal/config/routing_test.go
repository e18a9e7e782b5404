package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// issueContract is the configuration of issue 15, item 2, as operators
// write it.
const issueContract = `
providers:
  - {type: openai_compatible, name: east, base_url: "http://127.0.0.1:9001/v1", api_key_env: EAST_KEY}
  - {type: openai_compatible, name: west, base_url: "http://127.0.0.1:9002/v1", api_key_env: WEST_KEY}
models:
  add:
    - id: gpt-4o-mini
      deployments:
        - {provider: east, upstream_id: gpt-4o-mini, weight: 3}
        - {provider: west, upstream_id: gpt-4o-mini, weight: 1}
      fallbacks: [claude-haiku-4-5, gemini-2.5-flash]
routing:
  retries: 2            # extra attempts after the first, across deployments
  cooldown: 30s
  allowed_fails: 3      # failures within cooldown before a deployment is skipped
`

func TestLoadRoutingContract(t *testing.T) {
	got, err := Load(writeConfig(t, issueContract), fakeEnv(map[string]string{"EAST_KEY": "k1", "WEST_KEY": "k2"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	wantModels := []ModelEntry{{
		ID: "gpt-4o-mini",
		Deployments: []DeploymentEntry{
			{Provider: "east", UpstreamID: "gpt-4o-mini", Weight: 3},
			{Provider: "west", UpstreamID: "gpt-4o-mini", Weight: 1},
		},
		Fallbacks: []string{"claude-haiku-4-5", "gemini-2.5-flash"},
	}}
	if diff := cmp.Diff(wantModels, got.Models.Add); diff != "" {
		t.Errorf("models.add (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Default().Routing, got.Routing); diff != "" {
		t.Errorf("routing (-want +got):\n%s", diff)
	}
	for _, p := range got.Providers {
		if p.ConnectTimeout != 10*time.Second || p.FirstByteTimeout != p.Timeout || p.Timeout != 10*time.Minute {
			t.Errorf("provider %s timeouts: connect %s, first byte %s, total %s; want 10s, 10m, 10m",
				p.Name, p.ConnectTimeout, p.FirstByteTimeout, p.Timeout)
		}
	}
}

func TestRoutingDefaults(t *testing.T) {
	want := Routing{
		Retries: 2, Cooldown: 30 * time.Second, AllowedFails: 3,
		RetryBudget:   RetryBudget{Ratio: 0.2, Window: 10 * time.Second, MinPerSecond: 1},
		Backoff:       Backoff{Base: 100 * time.Millisecond, Max: 2 * time.Second},
		MaxRetryAfter: 5 * time.Second,
	}
	if diff := cmp.Diff(want, Default().Routing); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A section that sets one key keeps the others' defaults, nested
	// ones too.
	got, err := Load(writeConfig(t, "routing:\n  retries: 0\n  retry_budget:\n    ratio: 1\n"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	want.Retries, want.RetryBudget.Ratio = 0, 1
	if diff := cmp.Diff(want, got.Routing); diff != "" {
		t.Errorf("partial section (-want +got):\n%s", diff)
	}
}

// A deployment without weight weighs 1; an explicit 0 stays 0.
func TestDeploymentWeightDefault(t *testing.T) {
	got, err := Load(writeConfig(t, `
models:
  add:
    - id: m
      deployments:
        - {provider: a, upstream_id: m}
        - {provider: b, upstream_id: m, weight: 0}
        - {provider: c, upstream_id: m, weight: 7, priority: -1}
`), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	var weights, priorities []int
	for _, d := range got.Models.Add[0].Deployments {
		weights, priorities = append(weights, d.Weight), append(priorities, d.Priority)
	}
	if diff := cmp.Diff([]int{1, 0, 7}, weights); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 0, -1}, priorities); diff != "" {
		t.Errorf("priorities (-want +got):\n%s", diff)
	}
}

func TestLoadRoutingErrors(t *testing.T) {
	const model = "models:\n  add:\n    - id: m\n"
	const dep = model + "      deployments:\n        - {provider: a, upstream_id: m}\n"
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"negative weight", model + "      deployments:\n        - {provider: a, upstream_id: m}\n        - {provider: b, upstream_id: m, weight: -1}\n",
			[]string{"models.add[0].deployments[1].weight", "expected an integer of at least 0, got -1"}},
		{"weight not an integer", dep + "        - {provider: b, upstream_id: m, weight: 1.5}\n",
			[]string{"models.add[0].deployments[1].weight", "expected an integer", `"1.5"`}},
		{"priority not an integer", dep + "        - {provider: b, upstream_id: m, priority: high}\n",
			[]string{"models.add[0].deployments[1].priority", "expected an integer", `"high"`}},
		{"deployment without upstream id", model + "      deployments:\n        - {provider: a}\n",
			[]string{"models.add[0].deployments[0].upstream_id", "expected the model's ID at the provider"}},
		{"deployment without provider", model + "      deployments:\n        - {upstream_id: m}\n",
			[]string{"models.add[0].deployments[0].provider", "expected a provider name or type"}},
		{"negative deployment timeout", model + "      deployments:\n        - {provider: a, upstream_id: m, timeout: -1s}\n",
			[]string{"models.add[0].deployments[0].timeout", "zero or more"}},
		{"deployment timeout without unit", model + "      deployments:\n        - {provider: a, upstream_id: m, first_byte_timeout: 30}\n",
			[]string{"models.add[0].deployments[0].first_byte_timeout", "expected a duration", `"30"`}},
		{"deployment first byte past its total", model + "      deployments:\n        - {provider: a, upstream_id: m, first_byte_timeout: 2m, timeout: 1m}\n",
			[]string{"models.add[0].deployments[0].first_byte_timeout", "at most timeout (1m0s)"}},
		{"unknown deployment key", model + "      deployments:\n        - {provider: a, upstream_id: m, wieght: 2}\n",
			[]string{"models.add[0].deployments[0].wieght", "unknown key"}},
		{"unknown strategy", model + "      strategy: round-robin\n",
			[]string{"models.add[0].strategy", "expected one of weighted, least-busy, latency", `"round-robin"`}},
		{"fallbacks not a list", model + "      fallbacks: gpt-4o\n", []string{"models.add[0].fallbacks", "expected a list"}},
		{"fallback to itself", model + "      fallbacks: [gpt-4o, m]\n", []string{"models.add[0].fallbacks[1]", `another model than "m"`}},
		{"fallback twice", model + "      fallbacks: [gpt-4o, gpt-4o]\n", []string{"models.add[0].fallbacks[1]", "listed twice"}},
		{"empty context window fallback", model + "      context_window_fallbacks: [\"\"]\n",
			[]string{"models.add[0].context_window_fallbacks[0]", "expected a model ID"}},
		{"too many retries", "routing:\n  retries: 11\n", []string{"routing.retries", "from 0 to 10, got 11"}},
		{"negative retries", "routing:\n  retries: -1\n", []string{"routing.retries", "from 0 to 10"}},
		{"zero cooldown", "routing:\n  cooldown: 0s\n", []string{"routing.cooldown", "positive"}},
		{"negative allowed fails", "routing:\n  allowed_fails: -1\n", []string{"routing.allowed_fails", "at least 0"}},
		{"ratio above one", "routing:\n  retry_budget:\n    ratio: 1.5\n", []string{"routing.retry_budget.ratio", "from 0 to 1, got 1.5"}},
		{"ratio not a number", "routing:\n  retry_budget:\n    ratio: 20%\n", []string{"routing.retry_budget.ratio", "expected a number", `"20%"`}},
		{"ratio NaN", "routing:\n  retry_budget:\n    ratio: .nan\n", []string{"routing.retry_budget.ratio", "expected a number"}},
		{"zero window", "routing:\n  retry_budget:\n    window: 0s\n", []string{"routing.retry_budget.window", "positive"}},
		{"negative min per second", "routing:\n  retry_budget:\n    min_per_second: -1\n", []string{"routing.retry_budget.min_per_second", "from 0"}},
		{"backoff max below base", "routing:\n  backoff: {base: 1s, max: 500ms}\n", []string{"routing.backoff.max", "at least 1s, got 500ms"}},
		{"zero backoff base", "routing:\n  backoff: {base: 0s}\n", []string{"routing.backoff.base", "positive"}},
		{"negative max retry after", "routing:\n  max_retry_after: -1s\n", []string{"routing.max_retry_after", "zero or more"}},
		{"unknown routing key", "routing:\n  retry: 2\n", []string{"line 2", "routing.retry", "unknown key"}},
		{"negative connect timeout", "providers:\n  - type: openai\n    connect_timeout: -1s\n", []string{"providers[0].connect_timeout", "positive"}},
		{"first byte past the total", "providers:\n  - type: openai\n    timeout: 1m\n    first_byte_timeout: 2m\n",
			[]string{"providers[0].first_byte_timeout", "at most timeout (1m0s), got 2m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(writeConfig(t, tt.content), fakeEnv(nil))
			if err == nil {
				t.Fatalf("Load succeeded with %+v, want an error containing %q", c, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
