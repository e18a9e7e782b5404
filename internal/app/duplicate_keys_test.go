package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/store"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestDuplicateKeysRefused: a body that names a key twice is refused with
// 400 naming the key, on every endpoint and for every provider, before any
// upstream sees it (issue 13). The gateway reads the first "model" and an
// upstream the last: a key allowed only gpt-4o-mini was answered by o1 and
// billed as gpt-4o-mini; a second "stream" or "max_tokens" fooled the
// stream handling and the TPM reservation.
func TestDuplicateKeysRefused(t *testing.T) {
	up, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "dup@example.com")
	mini := miniOnlyKey(t, g)
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	tests := []struct {
		name, key, path, body, param string
	}{
		{"o1 smuggled past a gpt-4o-mini key", mini, "/v1/chat/completions",
			`{"model":"gpt-4o-mini",` + msgs + `,"model":"o1"}`, "model"},
		{"escaped model", mini, "/v1/chat/completions",
			`{"model":"gpt-4o-mini",` + msgs + `,"mod\u0065l":"o1"}`, "model"},
		{"model in another case", mini, "/v1/chat/completions",
			`{"model":"gpt-4o-mini",` + msgs + `,"Model":"o1"}`, "Model"},
		{"stream", key, "/v1/chat/completions",
			`{"model":"gpt-4o-mini","stream":false,` + msgs + `,"stream":true}`, "stream"},
		{"max_tokens", key, "/v1/chat/completions",
			`{"model":"gpt-4o-mini","max_tokens":1,` + msgs + `,"max_tokens":100000}`, "max_tokens"},
		{"nested content", key, "/v1/chat/completions",
			`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a","content":"b"}]}`, "messages[0].content"},
		{"claude stream", key, "/v1/chat/completions",
			`{"model":"claude-sonnet-5","stream":false,` + msgs + `,"stream":true}`, "stream"},
		{"gemini max_tokens", key, "/v1/chat/completions",
			`{"model":"gemini-3.5-flash","max_tokens":1,` + msgs + `,"max_tokens":100000}`, "max_tokens"},
		{"completions model", mini, "/v1/completions",
			`{"model":"gpt-4o-mini","prompt":"hi","model":"o1"}`, "model"},
		{"completions stream", key, "/v1/completions",
			`{"model":"gpt-3.5-turbo-instruct","prompt":"hi","stream":false,"stream":true}`, "stream"},
		{"completions max_tokens", key, "/v1/completions",
			`{"model":"gpt-3.5-turbo-instruct","prompt":"hi","max_tokens":1,"max_tokens":100000}`, "max_tokens"},
		{"embeddings model", key, "/v1/embeddings",
			`{"model":"text-embedding-3-small","input":"x","model":"text-embedding-3-large"}`, "model"},
		{"gemini embeddings input", key, "/v1/embeddings",
			`{"model":"gemini-embedding-001","input":"x","input":["a","b","c"]}`, "input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(up.Requests())
			resp, eb, raw := do(t, "POST", g.URL+tt.path, authJSON(tt.key), tt.body)
			if resp.StatusCode != 400 || eb.Error["type"] != "invalid_request_error" || eb.Error["param"] != tt.param {
				t.Fatalf("got %d %.300s, want 400 invalid_request_error with param %q", resp.StatusCode, raw, tt.param)
			}
			if msg, _ := eb.Error["message"].(string); !strings.Contains(msg, "Duplicate key '"+tt.param+"'") {
				t.Errorf("message %q does not name the key", msg)
			}
			if n := len(up.Requests()); n != before {
				t.Errorf("the upstream received %d requests", n-before)
			}
		})
	}
	// The same requests with each key once are served.
	for _, body := range []string{`{"model":"gpt-4o-mini",` + msgs + `}`, `{"model":"gpt-4o-mini","stream":true,` + msgs + `}`} {
		if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(mini), body); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", body, resp.StatusCode, raw)
		}
	}
}

// miniOnlyKey creates a key allowed to use gpt-4o-mini only.
func miniOnlyKey(t *testing.T, g *gateway) string {
	t.Helper()
	ctx := context.Background()
	acct, err := g.Store.CreateAccount(ctx, store.NewAccount{Email: "mini@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	full := apikey.Generate()
	h, _ := apikey.Parse(full)
	if _, err := g.Store.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: "mini", Hash: h.String(),
		Hint: apikey.Hint(full), Models: []string{"gpt-4o-mini"}}); err != nil {
		t.Fatal(err)
	}
	return full
}
