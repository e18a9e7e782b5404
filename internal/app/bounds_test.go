package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/meter"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// Issue 13: a prompt larger than the model's context window is refused
// with OpenAI's 400 before any upstream call.
func TestContextWindowRefusedBeforeUpstream(t *testing.T) {
	up, g := upstreamGateway(t, fakeopenai.Options{}, func(c *config.Config) {
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

// cutStream sends a streamed chat request with body and reads the stream
// to its end, which the gateway must reach within the test's own bound:
// it returns the events and the request's usage record.
func cutStream(t *testing.T, g *gateway, email, body string) ([]string, meter.Record) {
	t.Helper()
	key, _ := g.newKey(t, email)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("stream not ended by the gateway: %v (got %d bytes)", err, len(raw))
	}
	acct, err := g.Store.AccountByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	waitRows(t, g.Store, acct.ID, 1)
	recs, err := g.Store.ListUsage(context.Background(), acct.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(raw)), "\n\n"), recs[0]
}

// Issue 13: a stream that had started waited for its upstream forever.
// Past stream_idle_timeout the client's stream ends with an error event,
// and the usage sent so far is recorded.
func TestStreamIdleTimeoutEndsTheStream(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, func(c *config.Config) {
		for i := range c.Providers {
			c.Providers[i].StreamIdleTimeout = 200 * time.Millisecond
		}
	})
	events, r := cutStream(t, g, "idle@example.com", chatBody("gpt-4o-mini", "tell a story fake:midstream-hang", true))
	last := events[len(events)-1]
	if len(events) < 3 || !strings.HasPrefix(last, `data: {"error":{`) || !strings.Contains(last, "idle timeout") ||
		strings.Contains(strings.Join(events, ""), "[DONE]") {
		t.Fatalf("want content chunks then an idle-timeout error event, no [DONE]; got %q", events)
	}
	if r.Status != http.StatusGatewayTimeout || !r.Streamed || !r.Estimated || r.PromptTokens == 0 || r.CompletionTokens == 0 {
		t.Errorf("record %+v, want a 504 streamed record with the estimated usage so far", r)
	}
}

// Issue 15: a provider's timeout bounds a whole call, a stream included:
// a stream still running past it ends with an error event, and the usage
// sent so far is recorded.
func TestConfigTimeoutEndsAStream(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{TokenDelay: 20 * time.Millisecond, Words: 1000}, func(c *config.Config) {
		for i := range c.Providers {
			c.Providers[i].Timeout = 300 * time.Millisecond
		}
	})
	events, r := cutStream(t, g, "total@example.com", chatBody("gpt-4o-mini", "tell a long story", true))
	if last := events[len(events)-1]; len(events) < 3 || !strings.HasPrefix(last, `data: {"error":{`) ||
		strings.Contains(strings.Join(events, ""), "[DONE]") {
		t.Fatalf("want content chunks then an error event, no [DONE]; got %d events ending %s", len(events), last)
	}
	if r.Status != http.StatusGatewayTimeout || !r.Streamed || r.CompletionTokens == 0 {
		t.Errorf("record %+v, want a 504 streamed record with the usage so far", r)
	}
}
