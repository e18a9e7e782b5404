package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/fakeupstream"
)

// Issue 13: a prompt larger than the model's context window is refused
// with OpenAI's 400 before any upstream call.
func TestContextWindowRefusedBeforeUpstream(t *testing.T) {
	up, g := upstreamGateway(t, fakeupstream.Options{}, func(c *config.Config) {
		for _, id := range []string{"gpt-4o-mini", "gpt-3.5-turbo-instruct"} {
			c.Models.Add = append(c.Models.Add, config.ModelEntry{ID: id, ContextWindow: 1000})
		}
	})
	key, _ := g.newKey(t, "window@example.com")
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	long := strings.Repeat("word ", 1000*128/5+1) // 128 bytes a token at most
	prompt, _ := json.Marshal(map[string]any{"model": "gpt-3.5-turbo-instruct", "prompt": long})
	tests := []struct {
		name, path, body, param string
	}{
		{"chat", "/v1/chat/completions", chatBody("gpt-4o-mini", long, false), "messages"},
		{"chat stream", "/v1/chat/completions", chatBody("gpt-4o-mini", long, true), "messages"},
		{"completions", "/v1/completions", string(prompt), "prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(up.Requests())
			resp, eb, raw := do(t, "POST", g.URL+tt.path, hdr, tt.body)
			if resp.StatusCode != 400 || eb.Error["code"] != "context_length_exceeded" || eb.Error["param"] != tt.param {
				t.Fatalf("status %d, body %.300s", resp.StatusCode, raw)
			}
			if msg := eb.Error["message"].(string); !strings.Contains(msg, "maximum context length is 1000 tokens") {
				t.Errorf("message %q", msg)
			}
			if n := len(up.Requests()) - before; n != 0 {
				t.Errorf("%d upstream calls for a refused prompt", n)
			}
		})
	}
}
