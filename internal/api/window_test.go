package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Issue 13: a prompt larger than the model's context window went to the
// upstream (and, cut, to the tokenizer). It is refused with OpenAI's 400
// when its lower bound of tokens exceeds the window.
func TestCheckWindow(t *testing.T) {
	const window = 100
	text := func(n int) string { return strings.Repeat("x", n) }
	chat := func(contents ...any) string {
		var msgs []map[string]any
		for _, c := range contents {
			msgs = append(msgs, map[string]any{"role": "user", "content": c})
		}
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
		return string(b)
	}
	ids := func(n int) []int { return make([]int, n) }
	input := func(key string, v any) string {
		b, _ := json.Marshal(map[string]any{"model": "m", key: v})
		return string(b)
	}
	fits := window * maxBytesPerToken
	tests := []struct {
		name      string
		endpoint  provider.Endpoint
		body      string
		wantParam string // "" when the request fits
		wantN     string
	}{
		{"chat fits", provider.EndpointChat, chat(text(fits)), "", ""},
		{"chat over", provider.EndpointChat, chat(text(fits + 1)), "messages", "at least 101 tokens"},
		{"chat over across messages", provider.EndpointChat, chat(text(fits), "y"), "messages", "at least 101"},
		{"chat text parts", provider.EndpointChat, chat([]map[string]string{{"type": "text", "text": text(fits + 1)}}), "messages", "101"},
		{"chat image url is no text", provider.EndpointChat,
			chat([]map[string]any{{"type": "image_url", "image_url": map[string]string{"url": "data:image/png;base64," + text(2*fits)}}}), "", ""},
		{"prompt fits", provider.EndpointCompletion, input("prompt", text(fits)), "", ""},
		{"prompt over", provider.EndpointCompletion, input("prompt", text(fits+1)), "prompt", "your prompt resulted in at least 101"},
		{"prompts each fit", provider.EndpointCompletion, input("prompt", []string{text(fits), text(fits)}), "", ""},
		{"one prompt over", provider.EndpointCompletion, input("prompt", []string{"a", text(fits + 1)}), "prompt", "101"},
		{"token prompt fits", provider.EndpointCompletion, input("prompt", ids(window)), "", ""},
		{"token prompt over", provider.EndpointCompletion, input("prompt", ids(window+1)), "prompt", "at least 101"},
		{"token prompts over", provider.EndpointCompletion, input("prompt", [][]int{ids(1), ids(window + 5)}), "prompt", "105"},
		{"embedding input over", provider.EndpointEmbedding, input("input", []string{text(fits + 1)}), "input", "101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &gateway.Call{Endpoint: tt.endpoint, Body: []byte(tt.body)}
			e := checkWindow(c, &catalog.Model{ID: "m", ContextWindow: window})
			if tt.wantParam == "" {
				if e != nil {
					t.Fatalf("refused a request that fits: %s", e.Body())
				}
				return
			}
			if e == nil {
				t.Fatal("accepted a request over the window")
			}
			got := wantErr{e.Status, e.Type, e.Param, e.Code}
			want := wantErr{400, "invalid_request_error", tt.wantParam, "context_length_exceeded"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !strings.Contains(e.Message, "maximum context length is 100 tokens") || !strings.Contains(e.Message, tt.wantN) {
				t.Errorf("message %q, want the window and %q", e.Message, tt.wantN)
			}
		})
	}
	if e := checkWindow(&gateway.Call{Endpoint: provider.EndpointChat, Body: []byte(chat(text(10 * fits)))}, &catalog.Model{ID: "m"}); e != nil {
		t.Errorf("a model with no known window refused: %s", e.Body())
	}
}
