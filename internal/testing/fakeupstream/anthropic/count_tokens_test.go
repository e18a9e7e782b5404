package fakeanthropic

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestCountTokens(t *testing.T) {
	s := Start(Options{})
	t.Cleanup(s.Close)
	// What /v1/messages bills as input for the same conversation.
	billed := gjson.GetBytes(readAll(t, post(t, s, "/v1/messages", askHello).Body), "usage.input_tokens").Int()
	tests := []struct {
		name, path, body string
		status           int
		want             string // the answer's members, or the error message
	}{
		{"fixture", "/v1/messages/count_tokens", string(fixture(t, "inbound/count_tokens_request.json")), 200, ""},
		{"as billed", "/v1/messages/count_tokens?beta=true", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Say hello."}]}`, 200, ""},
		{"max_tokens", "/v1/messages/count_tokens", askHello, 400, "max_tokens: Extra inputs are not permitted"},
		{"no model", "/v1/messages/count_tokens", `{"messages":[{"role":"user","content":"x"}]}`, 400, "model: Field required"},
		{"unknown model", "/v1/messages/count_tokens", `{"model":"claude-9","messages":[{"role":"user","content":"x"}]}`, 404, "model: claude-9"},
		{"bad messages", "/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"assistant","content":"x"}]}`, 400, `messages: first message must use the "user" role`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, s, tt.path, tt.body)
			b := readAll(t, resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			if tt.status != http.StatusOK {
				if got := gjson.GetBytes(b, "error.message").Str; got != tt.want {
					t.Errorf("message %q, want %q", got, tt.want)
				}
				return
			}
			want := gjson.ParseBytes(fixture(t, "inbound/count_tokens_response.json"))
			if diff := cmp.Diff(keySet(want), keySet(gjson.ParseBytes(b))); diff != "" {
				t.Errorf("members (-fixture +fake):\n%s", diff)
			}
			n := gjson.GetBytes(b, "input_tokens").Int()
			if n <= 0 || tt.name == "as billed" && n != billed {
				t.Errorf("input_tokens %d (billed %d)", n, billed)
			}
		})
	}
}

// TestBetaQuery: SDKs in beta mode (Claude Code) add ?beta=true.
func TestBetaQuery(t *testing.T) {
	s := Start(Options{})
	t.Cleanup(s.Close)
	resp := post(t, s, "/v1/messages?beta=true", askHello)
	if b := readAll(t, resp.Body); resp.StatusCode != http.StatusOK || gjson.GetBytes(b, "type").Str != "message" {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
}
