package messages

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Translator turns chat completions answers into Messages answers and
// events for one request (gateway.Translator).
type Translator struct {
	req *Request
}

// Translator returns the request's translator.
func (r *Request) Translator() *Translator { return &Translator{req: r} }

// message is a Messages response, in Anthropic's field order.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"` // "message"
	Role         string  `json:"role"` // "assistant"
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type textBlockOut struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type thinkingBlock struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

// usageOf is a chat usage in Anthropic's terms, where input_tokens are
// the uncached part of the prompt.
func usageOf(u provider.Usage) usage {
	return usage{InputTokens: max(u.PromptTokens-u.CachedTokens, 0), CacheReadInputTokens: u.CachedTokens,
		OutputTokens: u.CompletionTokens}
}

// Response turns a whole chat completion into a Messages response: the
// first choice's thinking, text and tool calls, in that order.
func (t *Translator) Response(resp *provider.Response) (*provider.Response, error) {
	if !gjson.ValidBytes(resp.Body) {
		return nil, fmt.Errorf("translate chat answer: invalid JSON")
	}
	root := gjson.ParseBytes(resp.Body)
	choice := root.Get("choices.0")
	msg := message{ID: messageID(root.Get("id").Str), Type: "message", Role: "assistant",
		Model: t.model(root), Content: answerBlocks(choice.Get("message")),
		StopReason: ptr(stopReason(choice.Get("finish_reason").Str, choice.Get("message.refusal").Str != "")),
		Usage:      usageOf(resp.Usage)}
	b, err := json.Marshal(&msg)
	if err != nil {
		return nil, fmt.Errorf("translate chat answer: %w", err)
	}
	return &provider.Response{Body: b, Usage: resp.Usage, Header: resp.Header}, nil
}

// model is the model an answer names: the upstream's, else the client's.
func (t *Translator) model(root gjson.Result) string {
	if m := root.Get("model").Str; m != "" {
		return m
	}
	return t.req.Model
}

// answerBlocks returns a chat message's content blocks.
func answerBlocks(m gjson.Result) []any {
	blocks := []any{}
	if tb := m.Get("thinking_blocks"); tb.IsArray() && len(tb.Array()) > 0 {
		for _, b := range tb.Array() {
			blocks = append(blocks, json.RawMessage(b.Raw))
		}
	} else if rc := m.Get("reasoning_content").Str; rc != "" {
		// Thinking with no signature to carry (Gemini's ride in tool-call
		// IDs; OpenAI's are not sent in chat): the Anthropic adapter drops
		// such a block when it comes back.
		blocks = append(blocks, thinkingBlock{Type: "thinking", Thinking: rc})
	}
	text := contentText(m.Get("content"))
	if text == "" {
		text = m.Get("refusal").Str
	}
	if text != "" {
		blocks = append(blocks, textBlockOut{Type: "text", Text: text})
	}
	for _, tc := range m.Get("tool_calls").Array() {
		blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: outID(tc.Get("id").Str),
			Name: tc.Get("function.name").Str, Input: toolInput(tc.Get("function.arguments").Str)})
	}
	return blocks
}

// contentText returns a chat message's content: a string, or the text of
// its text parts.
func contentText(c gjson.Result) string {
	if !c.IsArray() {
		return c.Str
	}
	var b strings.Builder
	for _, p := range c.Array() {
		b.WriteString(p.Get("text").Str)
	}
	return b.String()
}

// toolInput returns a tool call's arguments as the tool_use input object.
// Arguments that are not a JSON object (a model's malformed output) give
// an empty input, which the client's schema check reports to the model.
func toolInput(args string) json.RawMessage {
	if v := gjson.Parse(args); gjson.Valid(args) && v.IsObject() {
		return json.RawMessage(args)
	}
	return json.RawMessage(`{}`)
}

// stopReason maps a chat finish_reason to a Messages stop_reason.
func stopReason(finish string, refused bool) string {
	switch {
	case refused || finish == "content_filter":
		return "refusal"
	case finish == "length":
		return "max_tokens"
	case finish == "tool_calls" || finish == "function_call":
		return "tool_use"
	}
	return "end_turn"
}

// messageID returns a Messages ID for a chat completion ID: msg_ and the
// ID's letters, digits and underscores (without a chatcmpl- or msg_
// prefix), or random ones.
func messageID(chatID string) string {
	id := strings.Map(func(r rune) rune {
		if r < 128 && validID(string(r)) && r != '-' {
			return r
		}
		return -1
	}, strings.TrimPrefix(strings.TrimPrefix(chatID, "chatcmpl-"), "msg_"))
	if id == "" {
		id = rand.Text()
	}
	return "msg_" + id
}

func ptr[T any](v T) *T { return &v }
