package mock

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonschema"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// answerWords is the deterministic answer to a prompt, cut to max words
// when max > 0.
func answerWords(prompt string, max int) []string {
	words := []string{"This", "is", "the", "Switchyard", "mock", "model", "answering:"}
	words = append(words, strings.Fields(prompt)...)
	if len(words) > 24 {
		words = words[:24]
	}
	if max > 0 && len(words) > max {
		words = words[:max]
	}
	return words
}

// countTokens is the mock's token count: one per word, at least one.
func countTokens(s string) int { return max(1, len(strings.Fields(s))) }

// reply is the mock's answer to one chat request; all its choices are
// alike.
type reply struct {
	calls  bool // the answer is a function call, not content
	call   call
	legacy bool     // the call is a function_call rather than tool_calls
	tokens []string // the content, one token each; joined they are the content
	finish string
}

func (r *reply) content() string { return strings.Join(r.tokens, "") }

// completionTokens is the count of one choice.
func (r *reply) completionTokens() int {
	if r.calls {
		return countTokens(r.call.args) + 2
	}
	return len(r.tokens)
}

// decide returns the mock's answer to a chat request: a call to an
// offered function when the last message is the user's, otherwise the
// content (JSON when response_format asks for it), cut at the first stop
// sequence and at max_tokens.
func decide(body []byte) reply {
	if c, legacy, ok := pickCall(body); ok {
		finish := "tool_calls"
		if legacy {
			finish = "function_call"
		}
		return reply{calls: true, call: c, legacy: legacy, finish: finish}
	}
	text := cutAtStop(body, formatted(body))
	toks, finish := tokenize(text), "stop"
	if mt := maxTokens(body); mt > 0 && len(toks) >= mt {
		toks, finish = toks[:mt], "length"
	}
	return reply{tokens: toks, finish: finish}
}

// formatted returns the content the request's response_format asks for:
// JSON that satisfies json_schema's schema, a JSON object holding the
// answer for json_object, else the answer.
func formatted(body []byte) string {
	text := strings.Join(answerWords(lastText(body), 0), " ")
	var v any
	switch rf := gjson.GetBytes(body, "response_format"); rf.Get("type").Str {
	case "json_schema":
		v = map[string]any{}
		if s := rf.Get("json_schema.schema"); s.Exists() {
			v = jsonschema.Example(s)
		}
	case "json_object":
		v = map[string]string{"answer": text}
	default:
		return text
	}
	b, _ := json.Marshal(v) // values decoded from JSON always marshal
	return string(b)
}

// cutAtStop returns text up to the earliest of the request's stop
// sequences.
func cutAtStop(body []byte, text string) string {
	stop := gjson.GetBytes(body, "stop")
	seqs := stop.Array() // a string is an array of one
	for _, s := range seqs {
		if i := strings.Index(text, s.Str); s.Str != "" && i >= 0 {
			text = text[:i]
		}
	}
	return text
}

// maxToken is the longest token, in bytes, tokenize makes.
const maxToken = 16

// tokenize splits text into the mock's tokens: a token starts at each
// space, and none is longer than maxToken bytes.
func tokenize(text string) []string {
	var out []string
	for len(text) > 0 {
		end := strings.IndexByte(text[1:], ' ') + 1
		if end == 0 {
			end = len(text)
		}
		if end > maxToken {
			end = maxToken
			for end > 1 && !utf8.RuneStart(text[end]) {
				end--
			}
		}
		out = append(out, text[:end])
		text = text[end:]
	}
	return out
}

// text returns the text of a message's content: a string, or its text
// parts joined by spaces.
func text(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	c.ForEach(func(_, part gjson.Result) bool {
		if part.Get("type").Str == "text" {
			parts = append(parts, part.Get("text").Str)
		}
		return true
	})
	return strings.Join(parts, " ")
}

// lastText returns the text of the last user, tool or function message:
// what the mock answers.
func lastText(body []byte) string {
	msgs := gjson.GetBytes(body, "messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Get("role").Str {
		case "user", "tool", "function":
			return text(msgs[i].Get("content"))
		}
	}
	return ""
}

func promptTokens(body []byte) int {
	n := 0
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		n += 3 + countTokens(m.Get("content").String())
		return true
	})
	return n
}

func maxTokens(body []byte) int {
	if v := gjson.GetBytes(body, "max_completion_tokens"); v.Exists() {
		return int(v.Int())
	}
	return int(gjson.GetBytes(body, "max_tokens").Int())
}

// choiceCount is the request's n, at least 1.
func choiceCount(body []byte) int { return max(1, int(gjson.GetBytes(body, "n").Int())) }

// Chat answers a chat completion.
func (p *Provider) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	rep := decide(r.Body)
	n := choiceCount(r.Body)
	// Every choice's tokens count, as OpenAI reports them.
	usage := provider.Usage{PromptTokens: promptTokens(r.Body), CompletionTokens: n * rep.completionTokens()}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	msg, lp := p.message(&rep), logprobs(r.Body, &rep)
	choices := make([]any, n)
	for i := range choices {
		choices[i] = map[string]any{"index": i, "message": msg, "logprobs": lp, "finish_reason": rep.finish}
	}
	b, err := json.Marshal(map[string]any{
		"id": p.id("chatcmpl-"), "object": "chat.completion", "created": p.now().Unix(), "model": r.Model,
		"choices": choices, "usage": usageJSON(usage), "system_fingerprint": "fp_mock",
	})
	return &provider.Response{Body: b, Usage: usage}, err
}

// message is the assistant message of a reply.
func (p *Provider) message(rep *reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": rep.content(), "refusal": nil}
	switch {
	case !rep.calls:
	case rep.legacy:
		msg["content"] = nil
		msg["function_call"] = map[string]string{"name": rep.call.name, "arguments": rep.call.args}
	default:
		msg["content"] = nil
		msg["tool_calls"] = []any{map[string]any{"id": p.id("call_"), "type": "function",
			"function": map[string]string{"name": rep.call.name, "arguments": rep.call.args}}}
	}
	return msg
}
