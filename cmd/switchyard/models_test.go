package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 15: `switchyard models` shows each model's deployments (provider,
// upstream ID, weight, priority) and fallbacks, in the table and in JSON.
func TestModelsShowsDeployments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "switchyard.yaml")
	err := os.WriteFile(path, []byte(`
providers:
  - {type: openai_compatible, name: east, base_url: "http://127.0.0.1:9/v1"}
  - {type: openai_compatible, name: west, base_url: "http://127.0.0.1:9/v1", timeout: 2m}
models:
  add:
    - id: gpt-4o-mini
      deployments:
        - {provider: east, upstream_id: gpt-4o-mini, weight: 3}
        - {provider: west, upstream_id: gpt-4o-mini-2024-07-18, priority: 1, first_byte_timeout: 30s}
      strategy: least-busy
      fallbacks: [claude-haiku-4-5, gemini-2.5-flash]
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, dir, "", "", "models", "--config", path)
	_, routing, ok := strings.Cut(out, "\nROUTING")
	if !ok {
		t.Fatalf("no ROUTING section:\n%s", out)
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSpace(routing), "\n")[1:] {
		got = append(got, strings.Fields(line))
	}
	want := [][]string{
		{"gpt-4o-mini", "least-busy", "east", "gpt-4o-mini", "3", "0", "claude-haiku-4-5,", "gemini-2.5-flash"},
		{"west", "gpt-4o-mini-2024-07-18", "1", "1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ROUTING rows (-want +got):\n%s\n%s", diff, routing)
	}

	var rows []struct {
		ID          string
		Deployments []map[string]any
		Strategy    string
		Fallbacks   []string
	}
	if err := json.Unmarshal([]byte(run(t, dir, "", "", "models", "--config", path, "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Deployments == nil || r.Fallbacks == nil {
			t.Fatalf("%s: deployments %v, fallbacks %v; want lists, not null", r.ID, r.Deployments, r.Fallbacks)
		}
		if r.ID != "gpt-4o-mini" {
			continue
		}
		wantDeps := []map[string]any{
			{"provider": "east", "upstream_id": "gpt-4o-mini", "weight": 3.0, "priority": 0.0, "first_byte_timeout": "10m0s", "timeout": "10m0s"},
			{"provider": "west", "upstream_id": "gpt-4o-mini-2024-07-18", "weight": 1.0, "priority": 1.0, "first_byte_timeout": "30s", "timeout": "2m0s"},
		}
		if diff := cmp.Diff(wantDeps, r.Deployments); diff != "" || r.Strategy != "least-busy" ||
			!cmp.Equal(r.Fallbacks, []string{"claude-haiku-4-5", "gemini-2.5-flash"}) {
			t.Errorf("gpt-4o-mini: strategy %q, fallbacks %v, deployments (-want +got):\n%s", r.Strategy, r.Fallbacks, diff)
		}
	}
}
