package gemini

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// translator turns Gemini answers to one request into OpenAI's shape.
type translator struct {
	name    string // provider name, for errors
	r       *provider.Request
	legacy  bool // answer with function_call rather than tool_calls
	oneCall bool // pass on only the first call of a choice
	env     env
}

// newTranslator is the translator of req's answers.
func newTranslator(name string, r *provider.Request, req chatRequest, e env) *translator {
	return &translator{name: name, r: r, legacy: req.legacy, oneCall: req.legacy || req.oneCall, env: e}
}

// choice is one candidate in OpenAI's terms.
type choice struct {
	index     int
	text      string
	reasoning string // the thought parts' text
	calls     []call
	finish    string
	refusal   string
}

// call is a function call with the ID the client will echo.
type call struct {
	id, name, args string
}

// chatResponse translates a generateContent answer into a chat.completion.
func (t *translator) chatResponse(b []byte) ([]byte, provider.Usage, error) {
	root := gjson.ParseBytes(b)
	if !gjson.ValidBytes(b) || !root.IsObject() {
		return nil, provider.Usage{}, provider.Unreadable(t.name, errNotJSON)
	}
	var choices []choice
	answer := &tokens.Text{}
	for _, c := range list(root.Get("candidates")) {
		ch := t.candidate(c)
		answer.Add(ch.reasoning)
		answer.Add(ch.text)
		for _, k := range ch.calls {
			answer.Add(k.args)
		}
		choices = append(choices, ch)
	}
	if len(choices) == 0 {
		block := root.Get("promptFeedback.blockReason").String()
		if block == "" {
			return nil, provider.Usage{}, provider.Unreadable(t.name, errors.New("no candidates and no block reason"))
		}
		choices = []choice{{finish: "content_filter", refusal: blockMessage(block)}}
	}
	slices.SortStableFunc(choices, func(a, b choice) int { return a.index - b.index })
	u, ok := usageOf(root.Get("usageMetadata"))
	if !ok {
		u = estimate(t.r, answer)
	}
	return t.render(root.Get("responseId").String(), choices, u), u.Usage, nil
}

// candidate reads one candidate: text parts joined, thought parts joined
// apart, function calls with generated IDs.
func (t *translator) candidate(c gjson.Result) choice {
	ch := choice{index: candidateIndex(c)}
	var text, thought strings.Builder
	for _, p := range list(c.Get("content.parts")) {
		s := p.Get("text")
		switch fc := p.Get("functionCall"); {
		case p.Get("thought").Bool():
			thought.WriteString(s.String())
		case fc.IsObject():
			ch.calls = append(ch.calls, t.call(fc, p.Get("thoughtSignature").String()))
		case s.Type == gjson.String:
			text.WriteString(s.Str)
		}
	}
	ch.text, ch.reasoning = text.String(), thought.String()
	ch.finish = finishReason(c.Get("finishReason").String(), len(ch.calls) > 0, t.legacy)
	if t.oneCall && len(ch.calls) > 1 {
		ch.calls = ch.calls[:1]
	}
	return ch
}

func (t *translator) call(fc gjson.Result, sig string) call {
	args := "{}"
	if a := fc.Get("args"); a.IsObject() {
		if raw, ok := compact(a.Raw); ok {
			args = string(raw)
		}
	}
	return call{id: callID(t.env.rand(), sig), name: fc.Get("name").String(), args: args}
}

// candidateIndex is the candidate's index (absent means 0).
func candidateIndex(c gjson.Result) int {
	return int(min(max(c.Get("index").Int(), 0), 1<<20))
}

// finishReason maps Gemini's finishReason. Gemini ends a function call
// answer with STOP: sawCall makes it tool_calls (function_call for
// legacy clients).
func finishReason(reason string, sawCall, legacy bool) string {
	switch reason {
	case "STOP":
		switch {
		case sawCall && legacy:
			return "function_call"
		case sawCall:
			return "tool_calls"
		}
	case "MAX_TOKENS":
		return "length"
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return "content_filter"
	}
	return "stop"
}

// blockMessage is the refusal shown for a blocked prompt.
func blockMessage(reason string) string {
	return "The prompt was blocked by Gemini (" + reason + ")."
}

// chatID is the response's ID: Gemini's responseId when it sent one.
func (t *translator) chatID(responseID string) string {
	if responseID == "" {
		responseID = t.env.rand()
	}
	return "chatcmpl-" + responseID
}

// render writes the chat.completion.
func (t *translator) render(responseID string, choices []choice, u usage) []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"id":`...)
	b = gjson.AppendJSONString(b, t.chatID(responseID))
	b = append(b, `,"object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, t.env.now().Unix(), 10)
	b = append(b, `,"model":`...)
	b = gjson.AppendJSONString(b, t.r.Model)
	b = append(b, `,"choices":[`...)
	for i, ch := range choices {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.appendChoice(b, ch)
	}
	b = append(b, `],"usage":`...)
	b = appendUsage(b, u)
	return append(b, '}')
}

func (t *translator) appendChoice(b []byte, ch choice) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(ch.index), 10)
	b = append(b, `,"message":{"role":"assistant","content":`...)
	switch {
	case ch.text != "":
		b = gjson.AppendJSONString(b, ch.text)
	case len(ch.calls) > 0:
		b = append(b, "null"...)
	default:
		b = append(b, `""`...)
	}
	if ch.reasoning != "" {
		b = append(b, `,"reasoning_content":`...)
		b = gjson.AppendJSONString(b, ch.reasoning)
	}
	b = append(b, `,"refusal":`...)
	b = appendNullable(b, ch.refusal)
	switch {
	case len(ch.calls) == 0:
	case t.legacy: // one function_call per message: the first call
		b = append(b, `,"function_call":`...)
		b = appendFunction(b, ch.calls[0])
	default:
		b = append(b, `,"tool_calls":[`...)
		for k, c := range ch.calls {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendToolCall(b, -1, c)
		}
		b = append(b, ']')
	}
	b = append(b, `},"logprobs":null,"finish_reason":`...)
	b = gjson.AppendJSONString(b, ch.finish)
	return append(b, '}')
}

// appendToolCall renders a tool call; index >= 0 adds the stream index.
func appendToolCall(b []byte, index int, c call) []byte {
	b = append(b, '{')
	if index >= 0 {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, int64(index), 10)
		b = append(b, ',')
	}
	b = append(b, `"id":`...)
	b = gjson.AppendJSONString(b, c.id)
	b = append(b, `,"type":"function","function":`...)
	b = appendFunction(b, c)
	return append(b, '}')
}

func appendFunction(b []byte, c call) []byte {
	b = append(b, `{"name":`...)
	b = gjson.AppendJSONString(b, c.name)
	b = append(b, `,"arguments":`...)
	b = gjson.AppendJSONString(b, c.args)
	return append(b, '}')
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return gjson.AppendJSONString(b, s)
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
