package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestFamiliesOtherEndpoints: legacy completions reach Claude and Gemini
// through chat; Gemini embeddings come back in the encoding asked for; a
// Claude model is not an embedding model; upstream overload is a 503 with
// Retry-After on every family.
func TestFamiliesOtherEndpoints(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "fam@example.com")
	for _, model := range []string{"claude-sonnet-5", "gemini-3.5-flash"} {
		resp, _, raw := do(t, "POST", g.URL+"/v1/completions", authJSON(key), `{"model":"`+model+`","prompt":["one","two"]}`)
		var c struct {
			Object  string
			Choices []struct {
				Text  string
				Index int
			}
			Usage struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		json.Unmarshal([]byte(raw), &c)
		if resp.StatusCode != 200 || c.Object != "text_completion" || len(c.Choices) != 2 || c.Choices[1].Index != 1 || c.Choices[0].Text == "" || c.Usage.TotalTokens == 0 {
			t.Errorf("%s completions: %d %s", model, resp.StatusCode, raw)
		}
		resp, _, raw = do(t, "POST", g.URL+"/v1/completions", authJSON(key), `{"model":"`+model+`","prompt":"one","stream":true}`)
		if resp.StatusCode != 200 || !strings.Contains(raw, `"object":"text_completion"`) || !strings.HasSuffix(strings.TrimSpace(raw), "data: [DONE]") {
			t.Errorf("%s streamed completions: %d %s", model, resp.StatusCode, raw)
		}
	}

	for _, format := range []string{"float", "base64"} {
		resp, _, raw := do(t, "POST", g.URL+"/v1/embeddings", authJSON(key),
			`{"model":"gemini-embedding-001","input":["a","b"],"dimensions":8,"encoding_format":"`+format+`"}`)
		var e struct {
			Data []struct {
				Embedding json.RawMessage
				Index     int
			}
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			}
		}
		json.Unmarshal([]byte(raw), &e)
		if resp.StatusCode != 200 || len(e.Data) != 2 || e.Data[1].Index != 1 || e.Usage.PromptTokens == 0 {
			t.Fatalf("gemini embeddings (%s): %d %s", format, resp.StatusCode, raw)
		}
		isString := e.Data[0].Embedding[0] == '"'
		if isString != (format == "base64") {
			t.Errorf("%s asked, got %s", format, e.Data[0].Embedding)
		}
	}
	resp, eb, _ := do(t, "POST", g.URL+"/v1/embeddings", authJSON(key), `{"model":"claude-sonnet-5","input":"x"}`)
	if resp.StatusCode != 400 || eb.Error["param"] != "model" {
		t.Errorf("embeddings on a Claude model: %d %v", resp.StatusCode, eb.Error)
	}

	for model, trig := range map[string][2]string{
		"claude-sonnet-5":  {"fake:error:529", "fake:error:401"},
		"gemini-3.5-flash": {"fake:error:503", "fake:badkey"},
	} {
		trigger := trig[0]
		resp, eb, raw := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody(model, trigger, false))
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || eb.Error["type"] != "server_error" {
			t.Errorf("%s overloaded: %d Retry-After=%q %s", model, resp.StatusCode, resp.Header.Get("Retry-After"), raw)
		}
		resp, _, raw = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody(model, trig[1], false))
		if resp.StatusCode != 502 || strings.Contains(raw, "invalid_api_key") {
			t.Errorf("%s upstream auth failure: %d %s", model, resp.StatusCode, raw)
		}
	}
	// Gemini's error in the middle of a stream, as a bare block without
	// "data:", reaches the client as the final error event with its status.
	resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key), chatBody("gemini-3.5-flash", "fake:midstream-bare-error", true))
	events := strings.Split(strings.TrimSpace(raw), "\n\n")
	last := events[len(events)-1]
	if resp.StatusCode != 200 || len(events) < 2 || !strings.HasPrefix(last, `data: {"error":{"message":"The upstream provider gemini failed with status 500.`) ||
		!strings.Contains(last, `"type":"server_error"`) || strings.Contains(raw, "[DONE]") {
		t.Errorf("Gemini's bare error mid-stream: %d, stream ends with %q", resp.StatusCode, last)
	}

	// Anthropic refuses n > 1 with a clear 400 naming n.
	resp, eb, _ = do(t, "POST", g.URL+"/v1/chat/completions", authJSON(key),
		`{"model":"claude-sonnet-5","n":2,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 400 || eb.Error["param"] != "n" {
		t.Errorf("n=2 on Claude: %d %v", resp.StatusCode, eb.Error)
	}
}
