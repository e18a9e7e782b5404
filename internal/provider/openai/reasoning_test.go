package openai_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestReasoningHistoryStripped: the reasoning extension's message fields
// (reasoning_content, thinking_blocks) do not reach the host; everything
// else goes byte for byte, whitespace and the same names elsewhere
// included, and the client's body is not modified.
func TestReasoningHistoryStripped(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"both, pretty",
			"{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"say \\\"reasoning_content\\\"\"},\n" +
				"    {\"role\": \"assistant\", \"content\": \"Hi\", \"reasoning_content\": \"They greet.\", \"thinking_blocks\": [{\"type\": \"thinking\", \"thinking\": \"They greet.\", \"signature\": \"c2ln\"}]},\n" +
				"    {\"role\": \"assistant\", \"thinking_blocks\": [{\"type\": \"redacted_thinking\", \"data\": \"xx\"}], \"content\": \"Again\"},\n" +
				"    {\"role\": \"user\", \"content\": \"ok\"}\n  ],\n" +
				"  \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {\"reasoning_content\": {\"type\": \"string\"}}}}}],\n" +
				"  \"reasoning_effort\": \"low\"\n}",
			"{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"say \\\"reasoning_content\\\"\"},\n" +
				"    {\"role\": \"assistant\", \"content\": \"Hi\"},\n" +
				"    {\"role\": \"assistant\", \"content\": \"Again\"},\n" +
				"    {\"role\": \"user\", \"content\": \"ok\"}\n  ],\n" +
				"  \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {\"reasoning_content\": {\"type\": \"string\"}}}}}],\n" +
				"  \"reasoning_effort\": \"low\"\n}"},
		{"only elsewhere", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object","properties":{"thinking_blocks":{"type":"string"}}}}}}`,
			`{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object","properties":{"thinking_blocks":{"type":"string"}}}}}}`},
		{"none", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}]}`, `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := replay(t, "openai/chat_response_basic.json")
			c := newClient(t, u.URL, openai.Options{APIKey: "sk-test"})
			sent := []byte(tt.body)
			if _, err := c.Chat(testContext(t), &provider.Request{Model: "gpt-4o", UpstreamModel: "gpt-4o", Body: sent}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(u.last(t).Body)); diff != "" {
				t.Errorf("upstream body (-want +got):\n%s", diff)
			}
			if !bytes.Equal(sent, []byte(tt.body)) {
				t.Errorf("Request.Body was modified: %s", sent)
			}
		})
	}
}

// fakeKey is the fake host's key.
const fakeKey = "sk-fake"

// TestReasoningHistoryThroughFake: a strict host refuses the extension's
// fields; stripped, the same conversation is answered, streamed or not.
func TestReasoningHistoryThroughFake(t *testing.T) {
	s := fakeopenai.Start(fakeopenai.Options{Key: fakeKey})
	t.Cleanup(s.Close)
	c := openai.New(openai.Options{Name: "fake", BaseURL: s.URL, APIKey: fakeKey})
	body := `{"model":"o3-mini","messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":"Hello","reasoning_content":"They greet.","thinking_blocks":[{"type":"thinking","thinking":"They greet.","signature":"c2ln"}]},` +
		`{"role":"user","content":"Again"}],"reasoning_effort":"low"}`
	r := &provider.Request{Model: "o3-mini", UpstreamModel: "o3-mini", Body: []byte(body)}
	if _, err := c.Chat(testContext(t), r); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	streamed := *r
	streamed.Body, streamed.Stream = append([]byte(`{"stream":true,`), body[1:]...), true
	st, err := c.ChatStream(testContext(t), &streamed)
	if err != nil {
		t.Fatalf("ChatStream: %v", err)
	}
	if _, err := drain(t, st); err != nil {
		t.Fatalf("stream: %v", err)
	}
	// Sent as is, the fake refuses it.
	req, _ := http.NewRequest("POST", s.URL+"/chat/completions", bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+fakeKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("the fake answered %d to the unstripped body, want 400", resp.StatusCode)
	}
}

// TestReasoningTokens: completion_tokens_details.reasoning_tokens is
// read into the usage.
func TestReasoningTokens(t *testing.T) {
	answer := `{"id":"c1","object":"chat.completion","created":1,"model":"o3","choices":[{"index":0,"message":{"role":"assistant","content":"4","reasoning_content":"2+2"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":10,"completion_tokens":70,"total_tokens":80,"completion_tokens_details":{"reasoning_tokens":64}}}`
	u := newUpstream(t, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(answer))
	c := newClient(t, u.URL, openai.Options{})
	resp, err := c.Chat(testContext(t), &provider.Request{Model: "o3", UpstreamModel: "o3", Body: []byte(`{"model":"o3","messages":[{"role":"user","content":"2+2?"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{PromptTokens: 10, CompletionTokens: 70, TotalTokens: 80, ReasoningTokens: 64}
	if diff := cmp.Diff(want, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if !bytes.Contains(resp.Body, []byte(`"reasoning_content":"2+2"`)) {
		t.Errorf("the host's reasoning_content was not passed on: %s", resp.Body)
	}
}
