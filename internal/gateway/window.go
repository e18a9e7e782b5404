package gateway

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// maxBytesPerToken is the longest token, in bytes, of the tokenizers we
// know: 128 in cl100k_base and o200k_base (runs of spaces; Llama 3 uses
// the same scheme), 64 in SentencePiece vocabularies (Gemini, Mistral),
// which cap a piece at 16 characters. A text of b bytes is therefore at
// least ceil(b/128) tokens whatever the model (docs/decisions.md).
const maxBytesPerToken = 128

// ContextTooLong reports a request whose input certainly exceeds the
// model's context window, found before any upstream call: OpenAI's 400
// context_length_exceeded.
type ContextTooLong struct {
	Param  string // the field that holds the input: messages, prompt or input
	Window int    // the model's window, tokens
	Tokens int    // a lower bound of the input's tokens
}

func (e *ContextTooLong) Error() string {
	return fmt.Sprintf("%s of at least %d tokens exceeds the context window of %d", e.Param, e.Tokens, e.Window)
}

// checkWindow refuses, before any upstream call, a request whose input
// certainly exceeds the model's context window: its text is at least
// ceil(bytes/maxBytesPerToken) tokens (token-ID prompts count exactly),
// a lower bound, so no prompt that fits is refused.
func checkWindow(endpoint provider.Endpoint, body []byte, m *catalog.Model) error {
	if m.ContextWindow <= 0 || atMost(endpoint, len(body)) <= m.ContextWindow {
		return nil
	}
	param, n := inputTokens(endpoint, body)
	if n <= m.ContextWindow {
		return nil
	}
	return &ContextTooLong{Param: param, Window: m.ContextWindow, Tokens: n}
}

// inputTokens returns the field that holds a request's input and the
// lower bound of its tokens that checkWindow compares with the window.
func inputTokens(endpoint provider.Endpoint, body []byte) (param string, n int) {
	switch endpoint {
	case provider.EndpointChat, provider.EndpointMessages, provider.EndpointResponses:
		return "messages", textTokens(gjson.Get(jsonscan.View(body), "messages")) // read in place
	case provider.EndpointCompletion:
		return "prompt", largestInput(gjson.GetBytes(body, "prompt"))
	case provider.EndpointEmbedding:
		return "input", largestInput(gjson.GetBytes(body, "input"))
	}
	return "", 0
}

// atMost bounds, from the body's length alone, what checkWindow counts:
// a text is no longer unescaped than in JSON, so texts are at most
// ceil(size/maxBytesPerToken) tokens, and a token ID takes a digit at
// least. A body within the window by that bound is not walked: most are,
// and the walk reads all of a long prompt (issue 18).
func atMost(endpoint provider.Endpoint, size int) int {
	switch endpoint {
	case provider.EndpointChat, provider.EndpointMessages, provider.EndpointResponses:
		return ceilDiv(size, maxBytesPerToken)
	}
	return size
}

// fitting returns m when the request may fit its window, else the first
// of m's context-window fallbacks with a larger window that it may fit,
// else the *ContextTooLong.
func (g *Gateway) fitting(rt *route.Table, req *Request, m *catalog.Model, allow route.Allow) (*catalog.Model, error) {
	err := checkWindow(req.Endpoint, req.chatBody(), m)
	if err == nil {
		return m, nil
	}
	if fb := windowFallback(rt, req, m, m, allow); fb != nil {
		return fb, nil
	}
	return nil, err
}

// windowFallback returns the first of requested's context-window
// fallbacks with a window larger than tooSmall's that the request may
// fit and may use, or nil.
func windowFallback(rt *route.Table, req *Request, requested, tooSmall *catalog.Model, allow route.Allow) *catalog.Model {
	for _, id := range requested.ContextWindowFallbacks {
		if fb := usable(rt, req, id, allow); fb != nil && fb.ContextWindow > tooSmall.ContextWindow {
			return fb
		}
	}
	return nil
}

// usable returns model id when it can answer req for the caller: it
// exists, serves the endpoint, the request may fit its window and
// req.Check accepts it; else nil.
func usable(rt *route.Table, req *Request, id string, allow route.Allow) *catalog.Model {
	m, err := lookup(rt, req.Endpoint, id, allow)
	if err != nil || checkWindow(req.Endpoint, req.chatBody(), m) != nil || req.Check != nil && req.Check(m) != nil {
		return nil
	}
	return m
}

// textTokens is a lower bound of the tokens of chat messages: their text
// contents and tool-call arguments.
func textTokens(msgs gjson.Result) int { return ceilDiv(textBytes(msgs), maxBytesPerToken) }

// textBytes is the length of chat messages' texts, unescaped. They are
// measured in place (stringLen): gjson would copy each one, unescaped, to
// be measured (issue 18).
func textBytes(msgs gjson.Result) int {
	b := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		content := member(m, "content")
		if content.Type == gjson.String {
			b += stringLen(m, "content")
		}
		content.ForEach(func(_, part gjson.Result) bool {
			b += stringLen(part, "text")
			return true
		})
		member(m, "tool_calls").ForEach(func(_, tc gjson.Result) bool {
			b += stringLen(member(tc, "function"), "arguments")
			return true
		})
		return true
	})
	return b
}

// member returns obj's member key as obj.Get(key) does, but a string as
// its type alone (Raw and Str empty), uncopied: the callers measure
// strings with stringLen.
func member(obj gjson.Result, key string) gjson.Result {
	raw, ok := jsonscan.Member(obj.Raw, key)
	switch {
	case !ok:
		return obj.Get(key)
	case strings.HasPrefix(raw, `"`):
		return gjson.Result{Type: gjson.String}
	}
	return gjson.Parse(raw)
}

// stringLen returns len(obj.Get(key).Str) without the copy gjson makes
// of the text to unescape it.
func stringLen(obj gjson.Result, key string) int {
	raw, ok := jsonscan.Member(obj.Raw, key)
	switch {
	case !ok:
		return len(obj.Get(key).Str)
	case strings.HasPrefix(raw, `"`):
		return jsonscan.StringLen(raw)
	}
	return 0
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
