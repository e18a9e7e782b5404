package api

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// maxBytesPerToken is the longest token, in bytes, of the tokenizers we
// know: 128 in cl100k_base and o200k_base (runs of spaces; Llama 3 uses
// the same scheme), 64 in SentencePiece vocabularies (Gemini, Mistral),
// which cap a piece at 16 characters. A text of b bytes is therefore at
// least ceil(b/128) tokens whatever the model (docs/decisions.md).
const maxBytesPerToken = 128

// checkWindow refuses, before any upstream call, a request whose input
// certainly exceeds the model's context window: its text is at least
// ceil(bytes/maxBytesPerToken) tokens (token-ID prompts count exactly),
// a lower bound, so no prompt that fits is refused. It answers OpenAI's
// 400 context_length_exceeded.
func checkWindow(c *gateway.Call, m *catalog.Model) *Error {
	if m.ContextWindow <= 0 {
		return nil
	}
	var n int
	var param string
	switch c.Endpoint {
	case provider.EndpointChat:
		param, n = "messages", textTokens(gjson.GetBytes(c.Body, "messages"))
	case provider.EndpointCompletion:
		param, n = "prompt", largestInput(gjson.GetBytes(c.Body, "prompt"))
	case provider.EndpointEmbedding:
		param, n = "input", largestInput(gjson.GetBytes(c.Body, "input"))
	}
	if n <= m.ContextWindow {
		return nil
	}
	return badRequest(param, "context_length_exceeded", fmt.Sprintf(
		"This model's maximum context length is %d tokens. However, your %s resulted in at least %d tokens. Please reduce the length of the %s.",
		m.ContextWindow, param, n, param))
}

// textTokens is a lower bound of the tokens of chat messages: their text
// contents and tool-call arguments.
func textTokens(msgs gjson.Result) int {
	b := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		content := m.Get("content")
		if content.Type == gjson.String {
			b += len(content.Str)
		}
		content.ForEach(func(_, part gjson.Result) bool {
			b += len(part.Get("text").Str)
			return true
		})
		m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			b += len(tc.Get("function.arguments").Str)
			return true
		})
		return true
	})
	return ceilDiv(b, maxBytesPerToken)
}

// largestInput is a lower bound of the tokens of the longest of a legacy
// prompt's or an embeddings request's inputs, each of which must fit the
// window on its own: a string, strings, token IDs or token-ID arrays.
func largestInput(in gjson.Result) int {
	switch {
	case in.Type == gjson.String:
		return ceilDiv(len(in.Str), maxBytesPerToken)
	case !in.IsArray():
		return 0
	}
	n, ids := 0, 0
	in.ForEach(func(_, v gjson.Result) bool {
		switch {
		case v.Type == gjson.String:
			n = max(n, ceilDiv(len(v.Str), maxBytesPerToken))
		case v.IsArray():
			n = max(n, countValues(v))
		default:
			ids++ // one token ID of a single token prompt
		}
		return true
	})
	return max(n, ids)
}

func countValues(arr gjson.Result) int {
	n := 0
	arr.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	return n
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
