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
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

func chatBody(model, content string, stream bool) string {
	b, _ := json.Marshal(map[string]any{"model": model, "stream": stream,
		"messages": []map[string]string{{"role": "user", "content": content}}})
	return string(b)
}

// TestUpstreamErrors maps every upstream failure to a status a client can
// act on, in the error shape.
func TestUpstreamErrors(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, func(c *config.Config) {
		for i := range c.Providers {
			c.Providers[i].Timeout = 300 * time.Millisecond
		}
		// Each failure's own answer, not retries of it (the gateway's
		// tests cover those): retried, the hangs take three timeouts.
		c.Routing.Retries = 0
	})
	key, _ := g.newKey(t, "errors@example.com")
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	tests := []struct {
		trigger    string
		status     int
		typ, code  string
		msg        string
		retryAfter string
	}{
		{"fake:error:400", 400, "invalid_request_error", "", "", ""},
		{"fake:error:401", 502, "server_error", "upstream_auth_failed", "credentials", ""},
		{"fake:error:403", 502, "server_error", "upstream_auth_failed", "credentials", ""},
		{"fake:error:404", 404, "invalid_request_error", "model_not_found", "Model not found", ""},
		{"fake:error:429", 429, "rate_limit_error", "", "rate-limiting", "2"},
		{"fake:error:500", 502, "server_error", "", "failed", ""},
		{"fake:error:503", 502, "server_error", "", "failed", ""},
		{"fake:hang", 504, "server_error", "", "in time", ""},
		{"fake:close", 502, "server_error", "", "failed", ""},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.trigger+map[bool]string{true: " stream"}[stream], func(t *testing.T) {
				resp, eb, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", tt.trigger, stream))
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, raw)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q: an error before the first byte is plain JSON", ct)
				}
				if eb.Error["type"] != tt.typ || !strings.Contains(eb.Error["message"].(string), tt.msg) {
					t.Errorf("body %s", raw)
				}
				code, hasCode := eb.Error["code"]
				switch {
				case tt.status == 429 && hasCode:
					t.Errorf("429 carries a code key: %s", raw)
				case tt.code != "" && code != tt.code:
					t.Errorf("code %v, want %s", code, tt.code)
				case tt.code == "invalid_api_key" || code == "invalid_api_key":
					t.Errorf("an upstream failure blamed the client's key: %s", raw)
				}
				if got := resp.Header.Get("Retry-After"); got != tt.retryAfter {
					t.Errorf("Retry-After %q, want %q", got, tt.retryAfter)
				}
			})
		}
	}
}

// TestMidstreamError: once the stream has started, an upstream failure is a
// final data: {"error":…} event with no [DONE].
func TestMidstreamError(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "mid@example.com")
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "fake:midstream-error", true))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := strings.Split(strings.TrimSpace(raw), "\n\n")
	last := events[len(events)-1]
	if !strings.HasPrefix(last, `data: {"error":{`) || strings.Contains(raw, "[DONE]") {
		t.Errorf("stream ends with %q (whole: %s)", last, raw)
	}
	if len(events) < 3 {
		t.Errorf("expected content chunks before the error: %s", raw)
	}
}

// TestClientDisconnectCancelsUpstream: when the client goes away mid-stream
// the upstream request is cancelled at once.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	up, g := upstreamGateway(t, fakeopenai.Options{TokenDelay: 50 * time.Millisecond, Words: 200}, nil)
	key, _ := g.newKey(t, "gone@example.com")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+"/v1/chat/completions", strings.NewReader(chatBody("gpt-4o-mini", "long story", true)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	resp.Body.Read(buf) // the stream has started
	cancel()
	resp.Body.Close()
	waitFor(t, 5*time.Second, "the upstream request to end after the client left", func() bool { return up.Active() == 0 })
	_ = io.EOF
}
