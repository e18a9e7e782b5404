package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// The chat.completion the client gets, with only documented OpenAI fields.

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   usageOut `json:"usage"`
}

type choice struct {
	Index        int        `json:"index"`
	Message      messageOut `json:"message"`
	Logprobs     *struct{}  `json:"logprobs"` // always null
	FinishReason string     `json:"finish_reason"`
}

type messageOut struct {
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
	ThinkingBlocks   []json.RawMessage `json:"thinking_blocks,omitempty"`
	ToolCalls        []toolCall        `json:"tool_calls,omitempty"`
	FunctionCall     *functionOut      `json:"function_call,omitempty"`
	Refusal          *string           `json:"refusal"` // always null
	Annotations      []struct{}        `json:"annotations"`
}

type toolCall struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function functionOut `json:"function"`
}

type functionOut struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type usageOut struct {
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	TotalTokens      int           `json:"total_tokens"`
	PromptDetails    promptDetails `json:"prompt_tokens_details"`
	// CompletionDetails is sent when Anthropic tells the thinking tokens.
	CompletionDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// completionOf translates a Messages API response for a client that
// asked for model.
func completionOf(name string, b []byte, model string, created int64, legacy bool) ([]byte, provider.Usage, error) {
	if !gjson.ValidBytes(b) {
		return nil, provider.Usage{}, provider.Unreadable(name, errors.New("invalid JSON"))
	}
	root := gjson.ParseBytes(b)
	if root.Get("type").Str == "error" {
		return nil, provider.Usage{}, eventError(name, b)
	}
	if !root.IsObject() {
		return nil, provider.Usage{}, provider.Unreadable(name, errors.New("not a message object"))
	}
	msg := answerOf(root.Get("content"), legacy)
	var u usage
	u.read(root.Get("usage"))
	out := completion{
		ID: "chatcmpl-" + root.Get("id").Str, Object: "chat.completion", Created: created, Model: model,
		Choices: []choice{{Message: msg, FinishReason: finishReason(root.Get("stop_reason").Str, legacy)}},
		Usage:   u.out(),
	}
	body, err := marshal(out)
	if err != nil {
		return nil, provider.Usage{}, provider.Unreadable(name, err)
	}
	return body, u.provider(), nil
}

// answerOf joins the text blocks into content (null when there are only
// tool calls) and turns tool_use blocks into tool_calls, or the first
// into function_call for a legacy client. Thinking blocks go, as
// received, into thinking_blocks, and their text into reasoning_content.
func answerOf(content gjson.Result, legacy bool) messageOut {
	var text strings.Builder
	var calls []toolCall
	var th thoughts
	content.ForEach(func(_, blk gjson.Result) bool {
		switch blk.Get("type").Str {
		case "text":
			text.WriteString(blk.Get("text").Str)
		case "thinking", "redacted_thinking":
			th.add(blk)
		case "tool_use":
			calls = append(calls, toolCall{ID: blk.Get("id").Str, Type: "function",
				Function: functionOut{Name: blk.Get("name").Str, Arguments: compactRaw(blk.Get("input"))}})
		}
		return true
	})
	msg := messageOut{Role: "assistant", Annotations: []struct{}{}, ThinkingBlocks: th.blocks}
	if len(th.blocks) > 0 {
		msg.ReasoningContent = &th.text
	}
	if s := text.String(); s != "" || len(calls) == 0 {
		msg.Content = &s
	}
	switch {
	case legacy && len(calls) > 0:
		msg.FunctionCall = &calls[0].Function
	case len(calls) > 0:
		msg.ToolCalls = calls
	}
	return msg
}

// finishReason maps stop_reason.
func finishReason(stop string, legacy bool) string {
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "tool_use":
		if legacy {
			return "function_call"
		}
		return "tool_calls"
	case "refusal":
		return "content_filter"
	}
	return "stop" // end_turn, stop_sequence, pause_turn, and anything new
}

// compactRaw is v's JSON without insignificant space; {} when v is absent.
func compactRaw(v gjson.Result) string {
	if !v.Exists() {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(v.Raw)); err != nil {
		return v.Raw
	}
	return buf.String()
}

// usage is Anthropic's token count: input_tokens excludes the cached part.
type usage struct {
	input, cacheRead, cacheWrite, output int
	thinking                             int  // part of output
	thinkingKnown                        bool // Anthropic told the thinking tokens
}

// read takes the counts present in u, leaving the others: message_delta
// repeats some of message_start's, and its output_tokens is cumulative.
func (x *usage) read(u gjson.Result) {
	for _, f := range [...]struct {
		key string
		dst *int
	}{
		{"input_tokens", &x.input},
		{"cache_read_input_tokens", &x.cacheRead},
		{"cache_creation_input_tokens", &x.cacheWrite},
		{"output_tokens", &x.output},
	} {
		if v := u.Get(f.key); v.Type == gjson.Number {
			*f.dst = int(max(v.Int(), 0))
		}
	}
	if v := u.Get("output_tokens_details.thinking_tokens"); v.Type == gjson.Number {
		x.thinking, x.thinkingKnown = int(max(v.Int(), 0)), true
	}
}

func (x *usage) prompt() int { return x.input + x.cacheRead + x.cacheWrite }

func (x *usage) out() usageOut {
	u := usageOut{PromptTokens: x.prompt(), CompletionTokens: x.output, TotalTokens: x.prompt() + x.output,
		PromptDetails: promptDetails{CachedTokens: x.cacheRead}}
	if x.thinkingKnown {
		u.CompletionDetails = &completionDetails{ReasoningTokens: x.thinking}
	}
	return u
}

func (x *usage) provider() provider.Usage {
	return provider.Usage{PromptTokens: x.prompt(), CompletionTokens: x.output, TotalTokens: x.prompt() + x.output,
		CachedTokens: x.cacheRead, ReasoningTokens: x.thinking}
}
