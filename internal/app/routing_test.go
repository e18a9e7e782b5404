package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/store"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

func authJSON(key string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
}

// TestAllowLists: a key's and an account's allow-lists both apply, to
// requests and to the model listing, and a change reaches the running
// server without a restart.
func TestAllowLists(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	ctx := context.Background()
	acct, _ := g.Store.CreateAccount(ctx, store.NewAccount{Email: "allow@example.com"})
	full := apikey.Generate()
	h, _ := apikey.Parse(full)
	if _, err := g.Store.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: "limited", Hash: h.String(),
		Hint: apikey.Hint(full), Models: []string{"gpt-4o-mini", "llama-*"}}); err != nil {
		t.Fatal(err)
	}
	status := func(model string) int {
		resp, _, _ := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(full), chatBody(model, "hi", false))
		return resp.StatusCode
	}
	for model, want := range map[string]int{"gpt-4o-mini": 200, "llama-3.3-70b-instruct": 200, "gpt-4o": 404, "gpt-9": 404} {
		if got := status(model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
	_, _, raw := do(t, "GET", g.URL+"/v1/models", authJSON(full), "")
	var list struct{ Data []struct{ ID string } }
	json.Unmarshal([]byte(raw), &list)
	for _, m := range list.Data {
		if m.ID != "gpt-4o-mini" && !strings.HasPrefix(m.ID, "llama-") {
			t.Errorf("listed %s, which the key may not use", m.ID)
		}
	}
	if resp, _, _ := do(t, "GET", g.URL+"/v1/models/gpt-4o", authJSON(full), ""); resp.StatusCode != 404 {
		t.Errorf("retrieve a model outside the allow-list: %d", resp.StatusCode)
	}

	// The account narrows further; the server learns of it by event.
	if err := g.Store.SetAccountModels(ctx, acct.ID, []string{"llama-3.3-70b-instruct"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the account allow-list change reaches the server", func() bool { return status("gpt-4o-mini") == 404 })
	if got := status("llama-3.3-70b-instruct"); got != 200 {
		t.Errorf("model allowed by both lists: %d", got)
	}
}

func TestModelLifecycle(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "life@example.com")
	// gpt-3.5-turbo was shut down on 2026-10-23: Model not found.
	resp, eb, _ := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("gpt-3.5-turbo", "hi", false))
	if resp.StatusCode != 404 || eb.Error["message"] != "Model not found" {
		t.Errorf("retired model: %d %v", resp.StatusCode, eb.Error)
	}
	// gpt-4o-mini is served until 2027-01-14: Deprecation and Sunset.
	resp, _, _ = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("gpt-4o-mini", "hi", false))
	if resp.StatusCode != 200 || resp.Header.Get("Deprecation") == "" || resp.Header.Get("Sunset") != "Thu, 14 Jan 2027 00:00:00 GMT" {
		t.Errorf("model under notice: %d Deprecation=%q Sunset=%q", resp.StatusCode, resp.Header.Get("Deprecation"), resp.Header.Get("Sunset"))
	}
	// gpt-5.5 has no notice.
	resp, _, _ = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("gpt-5.5", "hi", false))
	if resp.Header.Get("Deprecation") != "" || resp.Header.Get("Sunset") != "" {
		t.Errorf("model without notice got Deprecation=%q Sunset=%q", resp.Header.Get("Deprecation"), resp.Header.Get("Sunset"))
	}
	// Issue 15: the answer says which model and deployment answered,
	// after how many attempts.
	for h, want := range map[string]string{"X-Switchyard-Model": "gpt-5.5", "X-Switchyard-Deployment": "openai", "X-Switchyard-Attempts": "1"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	// A chat model on the embeddings endpoint, and the reverse.
	resp, eb, _ = do(t, "POST", g.URL+"/v1/embeddings", authJSON(key), `{"model":"gpt-4o-mini","input":"x"}`)
	if resp.StatusCode != 400 || eb.Error["param"] != "model" {
		t.Errorf("chat model on /v1/embeddings: %d %v", resp.StatusCode, eb.Error)
	}
	resp, eb, _ = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("text-embedding-3-small", "x", false))
	if resp.StatusCode != 400 || eb.Error["param"] != "model" {
		t.Errorf("embedding model on chat: %d %v", resp.StatusCode, eb.Error)
	}
	// Groq-hosted models are not served without a Groq provider.
	resp, _, _ = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("llama-3.1-8b-instruct", "x", false))
	if resp.StatusCode != 404 {
		t.Errorf("model without a provider: %d", resp.StatusCode)
	}
}

// sseEvents splits a stream body into its data payloads.
func sseEvents(raw string) []string {
	var out []string
	for _, ev := range strings.Split(raw, "\n\n") {
		if d, ok := strings.CutPrefix(strings.TrimSpace(ev), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestStreamUsageVariants: whatever the upstream does with usage, the
// client gets exactly what it asked for, in OpenAI's shape.
func TestStreamUsageVariants(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  fakeopenai.Options
	}{
		{"openai", fakeopenai.Options{}},
		{"no usage from upstream", fakeopenai.Options{NoStreamUsage: true}},
		{"groq x_groq.usage", fakeopenai.Options{GroqUsage: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, g := upstreamGateway(t, tt.opt, nil)
			key, _ := g.newKey(t, "usage@example.com")
			for _, include := range []bool{false, true} {
				body := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"count these words please"}]}`
				if include {
					body = strings.Replace(body, `"stream":true`, `"stream":true,"stream_options":{"include_usage":true}`, 1)
				}
				_, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), body)
				evs := sseEvents(raw)
				if len(evs) < 3 || evs[len(evs)-1] != "[DONE]" {
					t.Fatalf("stream %q", raw)
				}
				usageChunks := 0
				for _, ev := range evs[:len(evs)-1] {
					var c struct {
						Choices []any           `json:"choices"`
						Usage   json.RawMessage `json:"usage"`
					}
					if err := json.Unmarshal([]byte(ev), &c); err != nil {
						t.Fatalf("chunk %q: %v", ev, err)
					}
					if strings.Contains(ev, "x_groq") {
						t.Errorf("non-OpenAI field reached the client: %s", ev)
					}
					hasKey := strings.Contains(ev, `"usage"`)
					switch {
					case !include && hasKey:
						t.Errorf("usage key in a stream that did not ask for it: %s", ev)
					case include && len(c.Choices) == 0:
						usageChunks++
						var u struct{ PromptTokens, CompletionTokens, TotalTokens int }
						json.Unmarshal(c.Usage, &struct {
							P *int `json:"prompt_tokens"`
							C *int `json:"completion_tokens"`
							T *int `json:"total_tokens"`
						}{&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens})
						if u.PromptTokens == 0 || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
							t.Errorf("usage chunk %s", ev)
						}
					}
				}
				if include && usageChunks != 1 {
					t.Errorf("%d usage chunks, want 1: %s", usageChunks, raw)
				}
			}
		})
	}
}

// TestEmbeddingEncodingConversion: an upstream that ignores
// encoding_format still gives the client what it asked for.
func TestEmbeddingEncodingConversion(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{FloatOnly: true}, nil)
	key, _ := g.newKey(t, "emb@example.com")
	_, _, rawB := do(t, "POST", g.URL+"/v1/embeddings", authJSON(key), `{"model":"text-embedding-3-small","input":"x","encoding_format":"base64","dimensions":4}`)
	_, _, rawF := do(t, "POST", g.URL+"/v1/embeddings", authJSON(key), `{"model":"text-embedding-3-small","input":"x","dimensions":4}`)
	var b64 struct{ Data []struct{ Embedding string } }
	var fl struct {
		Data []struct{ Embedding []float32 }
	}
	if err := json.Unmarshal([]byte(rawB), &b64); err != nil || len(b64.Data) != 1 {
		t.Fatalf("base64 answer %s: %v", rawB, err)
	}
	if err := json.Unmarshal([]byte(rawF), &fl); err != nil || len(fl.Data[0].Embedding) != 4 {
		t.Fatalf("float answer %s: %v", rawF, err)
	}
	raw, err := base64.StdEncoding.DecodeString(b64.Data[0].Embedding)
	if err != nil || len(raw) != 16 {
		t.Fatalf("base64 %q: %v", b64.Data[0].Embedding, err)
	}
	var want []byte
	for _, f := range fl.Data[0].Embedding {
		bits := mathFloat32bits(f)
		want = append(want, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24))
	}
	if string(raw) != string(want) {
		t.Errorf("base64 bytes %x, want little-endian float32 %x", raw, want)
	}
	resp, eb, _ := do(t, "POST", g.URL+"/v1/embeddings", authJSON(key), `{"model":"text-embedding-ada-002","input":"x","dimensions":4}`)
	if resp.StatusCode != 400 || eb.Error["param"] != "dimensions" {
		t.Errorf("dimensions on ada-002: %d %v", resp.StatusCode, eb.Error)
	}
}

// TestLegacyFunctionsStreamTranslated: on a tools-only host, a streamed
// legacy function call still arrives as function_call deltas.
func TestLegacyFunctionsStreamTranslated(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "fn@example.com")
	body := `{"model":"llama-3.3-70b-instruct","stream":true,"messages":[{"role":"user","content":"weather?"}],
		"functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`
	resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	var name, args, finish string
	for _, ev := range sseEvents(raw) {
		if ev == "[DONE]" {
			continue
		}
		if strings.Contains(ev, "tool_calls") {
			t.Errorf("tool_calls reached a functions client: %s", ev)
		}
		var c struct {
			Choices []struct {
				Delta struct {
					FunctionCall struct{ Name, Arguments string } `json:"function_call"`
				}
				FinishReason string `json:"finish_reason"`
			}
		}
		json.Unmarshal([]byte(ev), &c)
		for _, ch := range c.Choices {
			name += ch.Delta.FunctionCall.Name
			args += ch.Delta.FunctionCall.Arguments
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if name != "get_weather" || args != `{"location":"Paris"}` || finish != "function_call" {
		t.Errorf("name %q args %q finish %q", name, args, finish)
	}
}

func mathFloat32bits(f float32) uint32 { return math.Float32bits(f) }
