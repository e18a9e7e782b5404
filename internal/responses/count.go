package responses

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// imageTokens is what one image is counted as: OpenAI's charge for a
// low-detail image, the least any image costs.
const imageTokens = 85

// CountInputTokens estimates the input tokens of the request, for POST
// /v1/responses/input_tokens: its chat translation's text (messages,
// tool calls and tool definitions) through the tokenizer, plus chat's
// per-message overhead and a fixed count per image.
func (r *Request) CountInputTokens() int {
	body, err := r.Chat()
	if err != nil {
		// What chat cannot carry is still input: count the items' JSON.
		var b strings.Builder
		for _, item := range append(r.history[:len(r.history):len(r.history)], r.input...) {
			b.Write(item)
		}
		return tokens.Count(r.Model, b.String())
	}
	var text strings.Builder
	msgs := gjson.GetBytes(body, "messages").Array()
	images := 0
	for _, m := range msgs {
		c := m.Get("content")
		if c.Type == gjson.String {
			text.WriteString(c.Str)
		}
		if c.IsArray() {
			for _, p := range c.Array() {
				text.WriteString(p.Get("text").Str)
				if p.Get("type").Str == "image_url" {
					images++
				}
			}
		}
		text.WriteString(m.Get("refusal").Str)
		m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			text.WriteString(tc.Get("function.name").Str)
			text.WriteString(tc.Get("function.arguments").Str)
			return true
		})
		text.WriteByte('\n')
	}
	text.WriteString(gjson.GetBytes(body, "tools").Raw)
	text.WriteString(gjson.GetBytes(body, "response_format").Raw)
	// Chat's format adds about 3 tokens per message and 3 to prime the
	// answer (as internal/provider/openai estimates).
	return tokens.Count(r.Model, text.String()) + 3 + 3*len(msgs) + imageTokens*images
}
