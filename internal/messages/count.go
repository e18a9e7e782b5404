package messages

import (
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// mediaTokens is what an image or a file part is counted as: about what
// Anthropic charges for an image at its largest size (1.15 megapixels).
// The gateway does not decode media to measure them.
const mediaTokens = 1600

// CountTokens checks a count_tokens body and estimates its input tokens.
func CountTokens(body []byte) (int, error) {
	r, err := ParseCount(body)
	if err != nil {
		return 0, err
	}
	return r.InputTokens(), nil
}

// InputTokens estimates the request's input tokens with the tokenizer, on
// its chat translation: the text of every message, tool call and thinking
// block, the tool definitions and the output schema, plus chat's framing
// (about 3 tokens a message and 3 to prime the answer) and a flat count
// for each image or file.
func (r *Request) InputTokens() int {
	var t tokens.Text
	n := 3
	for _, m := range r.chat.Messages {
		n += 3 + addContent(&t, m.Content)
		for _, tc := range m.ToolCalls {
			t.Add(tc.Function.Name)
			t.Add(tc.Function.Arguments)
		}
		for _, b := range m.ThinkingBlocks {
			t.Add(gjson.GetBytes(b, "thinking").Str)
		}
	}
	for _, tool := range r.chat.Tools {
		t.Add(tool.Function.Name)
		t.Add(tool.Function.Description)
		t.Add(string(tool.Function.Parameters))
	}
	if f := r.chat.ResponseFormat; f != nil {
		t.Add(string(f.JSONSchema.Schema))
	}
	return n + t.Count(r.Model)
}

// addContent adds a message's text to t and returns the flat count of its
// media.
func addContent(t *tokens.Text, content any) int {
	switch c := content.(type) {
	case string:
		t.Add(c)
		t.Add("\n")
	case []any:
		n := 0
		for _, p := range c {
			if tp, ok := p.(textPart); ok {
				t.Add(tp.Text)
				t.Add("\n")
			} else {
				n += mediaTokens
			}
		}
		return n
	}
	return 0
}
