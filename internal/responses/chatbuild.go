package responses

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/envelope"
)

// chatMessage is one chat completions message.
type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content,omitempty"` // string or []chatPart
	Refusal string `json:"refusal,omitempty"`
	// ThinkingBlocks are the Anthropic thinking blocks of an assistant
	// turn, from a reasoning item's envelope (the chat extension of
	// docs/design 16).
	ThinkingBlocks []json.RawMessage `json:"thinking_blocks,omitempty"`
	ToolCalls      []chatToolCall    `json:"tool_calls,omitempty"`
	ToolCallID     string            `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function callFunc `json:"function"`
}

type callFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatPart is a part of a user, system or developer message.
type chatPart struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *chatFile `json:"file,omitempty"`
}

type imageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

type chatFile struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"`
	FileID   string `json:"file_id,omitempty"`
}

// chatBuilder turns Responses items into chat messages, in order.
type chatBuilder struct {
	msgs []chatMessage
	// pending are thinking blocks of a reasoning item, waiting for the
	// assistant message they precede.
	pending []json.RawMessage
}

// add appends item (validated by Parse, or stored by the gateway); p
// names it in errors.
func (b *chatBuilder) add(item gjson.Result, p string) error {
	switch item.Get("type").Str {
	case "message":
		return b.message(item, p)
	case "function_call":
		m := b.assistant(true)
		m.ToolCalls = append(m.ToolCalls, chatToolCall{item.Get("call_id").Str, "function",
			callFunc{item.Get("name").Str, item.Get("arguments").Str}})
	case "function_call_output":
		out, err := toolOutput(item.Get("output"), p+".output")
		if err != nil {
			return err
		}
		b.push(chatMessage{Role: "tool", Content: out, ToolCallID: item.Get("call_id").Str})
	case "reasoning":
		return b.reasoning(item, p)
	}
	return nil
}

// push appends a message that is not the assistant's: thinking blocks
// not followed by an assistant turn are dropped.
func (b *chatBuilder) push(m chatMessage) {
	b.pending = nil
	b.msgs = append(b.msgs, m)
}

// assistant returns the assistant message the next output goes into: the
// last message when merge is set and it is the assistant's, else a new
// one. Pending thinking blocks go into it.
func (b *chatBuilder) assistant(merge bool) *chatMessage {
	if n := len(b.msgs); !merge || n == 0 || b.msgs[n-1].Role != "assistant" {
		b.msgs = append(b.msgs, chatMessage{Role: "assistant"})
	}
	m := &b.msgs[len(b.msgs)-1]
	m.ThinkingBlocks = append(m.ThinkingBlocks, b.pending...)
	b.pending = nil
	return m
}

// reasoning keeps the thinking blocks of an Anthropic envelope for the
// next assistant turn; other reasoning (OpenAI's encrypted state, bare
// summaries) cannot be sent to a chat upstream and is dropped.
func (b *chatBuilder) reasoning(item gjson.Result, p string) error {
	enc := item.Get("encrypted_content").Str
	if !envelope.Is(enc) {
		return nil
	}
	provider, blocks, err := envelope.Open(enc)
	if err != nil || !gjson.ValidBytes(blocks) || !gjson.ParseBytes(blocks).IsArray() {
		return invalidValue(p+".encrypted_content", "not a valid Switchyard reasoning envelope; send reasoning items back unchanged.")
	}
	if provider != "anthropic" {
		return nil
	}
	gjson.ParseBytes(blocks).ForEach(func(_, blk gjson.Result) bool {
		b.pending = append(b.pending, json.RawMessage(blk.Raw))
		return true
	})
	return nil
}

// message appends a message item.
func (b *chatBuilder) message(item gjson.Result, p string) error {
	role, c := item.Get("role").Str, item.Get("content")
	if role == "assistant" {
		return b.assistantMessage(c, p+".content")
	}
	if c.Type == gjson.String {
		b.push(chatMessage{Role: role, Content: c.Str})
		return nil
	}
	parts := []chatPart{}
	for j, part := range c.Array() {
		cp, err := userPart(part, indexed(p+".content", j), role)
		if err != nil {
			return err
		}
		parts = append(parts, cp)
	}
	b.push(chatMessage{Role: role, Content: parts})
	return nil
}

// assistantMessage appends an assistant turn: its text parts joined as
// content, its refusal parts as refusal.
func (b *chatBuilder) assistantMessage(c gjson.Result, p string) error {
	m := b.assistant(false)
	if c.Type == gjson.String {
		m.Content = c.Str
		return nil
	}
	var text, refusal strings.Builder
	hasText := false
	for j, part := range c.Array() {
		switch part.Get("type").Str {
		case "output_text", "input_text":
			text.WriteString(part.Get("text").Str)
			hasText = true
		case "refusal":
			refusal.WriteString(part.Get("refusal").Str)
		default:
			return nativeOnly(indexed(p, j)+".type", "Assistant messages can only hold text and refusals when sent to this model, not '%s'.", part.Get("type").Str)
		}
	}
	if hasText || refusal.Len() == 0 {
		m.Content = text.String()
	}
	m.Refusal = refusal.String()
	return nil
}

// userPart returns a user, system or developer message part in chat's
// shape.
func userPart(part gjson.Result, p, role string) (chatPart, error) {
	t := part.Get("type").Str
	switch t {
	case "input_text", "output_text":
		s := part.Get("text").Str
		return chatPart{Type: "text", Text: &s}, nil
	case "refusal":
		s := part.Get("refusal").Str
		return chatPart{Type: "text", Text: &s}, nil
	}
	if role != "user" {
		return chatPart{}, nativeOnly(p+".type", "Only text parts are supported in %s messages, not '%s'.", role, t)
	}
	if t == "input_image" {
		if id := part.Get("file_id").Str; part.Get("image_url").Str == "" {
			return chatPart{Type: "file", File: &chatFile{FileID: id}}, nil
		}
		return chatPart{Type: "image_url", ImageURL: &imageURL{part.Get("image_url").Str, part.Get("detail").Str}}, nil
	}
	f := &chatFile{Filename: part.Get("filename").Str, FileData: part.Get("file_data").Str, FileID: part.Get("file_id").Str}
	if f.FileData == "" && f.FileID == "" {
		return chatPart{}, nativeOnly(p+".file_url", "Files by URL are not supported for this model; send file_data or file_id.")
	}
	return chatPart{Type: "file", File: f}, nil
}

// toolOutput returns a function call's output as the tool message's
// text: a string as is, input_text parts joined.
func toolOutput(out gjson.Result, p string) (string, error) {
	if out.Type == gjson.String {
		return out.Str, nil
	}
	var s strings.Builder
	for j, part := range out.Array() {
		if t := part.Get("type").Str; t != "input_text" {
			return "", nativeOnly(indexed(p, j)+".type", "Function call outputs can only hold text when sent to this model, not '%s'.", t)
		}
		s.WriteString(part.Get("text").Str)
	}
	return s.String(), nil
}
