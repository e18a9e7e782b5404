package gemini

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

// TestChatReasoning: through the strict fake, an effort shows the model's
// thoughts as reasoning_content and counts them as reasoning tokens;
// none turns thinking off where the model can stop.
func TestChatReasoning(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	const thought = "**Reading the request**\nThe user wrote: Count to three."
	for _, tt := range []struct {
		model, effort, reasoning string
		tokens                   int
	}{
		{flash, "low", thought, 7},
		{flash, "none", "", 0},
		{flash3, "high", thought, 7},
		{flash3, "none", "", 7}, // minimal still thinks, without showing it
	} {
		t.Run(tt.model+"/"+tt.effort, func(t *testing.T) {
			r := request(tt.model, `{"messages":[{"role":"user","content":"Count to three."}],"reasoning_effort":"`+tt.effort+`"}`)
			r.Reasoning = reasoningOf(tt.model)
			resp, err := c.Chat(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			msg := gjson.GetBytes(resp.Body, "choices.0.message")
			if diff := cmp.Diff(tt.reasoning, msg.Get("reasoning_content").Str); diff != "" {
				t.Errorf("reasoning_content (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(msg.Get("content").Str, "You said: Count") {
				t.Errorf("content %s", msg.Get("content").Raw)
			}
			if resp.Usage.ReasoningTokens != tt.tokens || gjson.GetBytes(resp.Body, "usage.completion_tokens_details.reasoning_tokens").Int() != int64(tt.tokens) {
				t.Errorf("reasoning tokens %d, body %s; want %d", resp.Usage.ReasoningTokens, resp.Body, tt.tokens)
			}

			r.Stream, r.IncludeUsage = true, true
			got, u, err := chunks(t, c, r)
			if err != nil {
				t.Fatal(err)
			}
			var reasoning, content strings.Builder
			for _, ch := range got {
				d := ch.Get("choices.0.delta")
				if d.Get("reasoning_content").Exists() && content.Len() > 0 {
					t.Errorf("reasoning after content: %s", ch.Raw)
				}
				reasoning.WriteString(d.Get("reasoning_content").Str)
				content.WriteString(d.Get("content").Str)
			}
			if diff := cmp.Diff(tt.reasoning, reasoning.String()); diff != "" {
				t.Errorf("streamed reasoning_content (-want +got):\n%s", diff)
			}
			if u.ReasoningTokens != tt.tokens {
				t.Errorf("stream reasoning tokens %d, want %d", u.ReasoningTokens, tt.tokens)
			}
		})
	}
}

// TestChatJSONSchemaThroughFake: a schema with keywords Gemini refuses is
// filtered so that the strict fake takes it, and the answer fits it.
func TestChatJSONSchemaThroughFake(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	body := `{"messages":[{"role":"user","content":"Extract."}],"response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,"schema":` +
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"name":{"type":"string","minLength":2},"tags":{"type":"array","items":{"$ref":"#/definitions/Tag"},"uniqueItems":true}},` +
		`"required":["name","tags"],"additionalProperties":false,"definitions":{"Tag":{"type":"string","enum":["a","b"]}}}}}}`
	got := chat(t, c, request(flash, body))
	if diff := cmp.Diff(`{"name":"Paris","tags":["a"]}`, got.Get("choices.0.message.content").Str); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}
