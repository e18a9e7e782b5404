package messages

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// toolResult adds a tool_result block: a chat tool message with its text.
// Chat tool messages carry text only, so images and documents of the
// result open the user message that follows, and is_error becomes an
// "Error: " prefix.
func (u *userParts) toolResult(b gjson.Result, p string) error {
	id, err := str(b.Get("tool_use_id"), path(p, "tool_use_id"), true)
	if err != nil {
		return err
	}
	isErr := b.Get("is_error")
	if isErr.Exists() && isErr.Type != gjson.Null && !isBool(isErr) {
		return errorf(path(p, "is_error"), "Input should be a valid boolean")
	}
	var text string
	switch c := b.Get("content"); {
	case !c.Exists() || c.Type == gjson.Null:
	case c.Type == gjson.String:
		text = c.Str
	case c.IsArray():
		if text, err = u.resultBlocks(c, path(p, "content")); err != nil {
			return err
		}
	default:
		return errorf(path(p, "content"), "Input should be a valid string or a list of content blocks")
	}
	if isErr.Bool() {
		text = "Error: " + text
	}
	u.tools = append(u.tools, chatMessage{Role: "tool", ToolCallID: inID(id), Content: text})
	return nil
}

// resultBlocks returns the text of a tool result's blocks, joined by
// newlines, and keeps its other parts for the user message.
func (u *userParts) resultBlocks(c gjson.Result, p string) (string, error) {
	var texts []string
	for i, rb := range c.Array() {
		bp := path(p, i)
		if !rb.IsObject() {
			return "", errorf(bp, "Input should be a valid dictionary")
		}
		if t := rb.Get("type").Str; t != "text" && t != "image" && t != "document" {
			return "", badBlockType(rb, bp)
		}
		parts, err := userContent(rb, bp)
		if err != nil {
			return "", err
		}
		for _, part := range parts {
			if t, ok := part.(textPart); ok {
				texts = append(texts, t.Text)
			} else {
				u.lead = append(u.lead, part)
			}
		}
	}
	return strings.Join(texts, "\n"), nil
}

// imageMedia are the image types Anthropic accepts.
var imageMedia = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// imageURLOf returns the chat image URL of an image source: a data: URL
// for base64 data.
func imageURLOf(src gjson.Result, p string) (string, error) {
	if !src.IsObject() {
		return "", errorf(p, "Field required")
	}
	switch t := src.Get("type").Str; t {
	case "base64":
		mt, err := str(src.Get("media_type"), path(p, "media_type"), true)
		if err == nil && !imageMedia[mt] {
			err = errorf(path(p, "media_type"), "Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
		}
		if err != nil {
			return "", err
		}
		data, err := str(src.Get("data"), path(p, "data"), true)
		return "data:" + mt + ";base64," + data, err
	case "url":
		return str(src.Get("url"), path(p, "url"), true)
	case "file":
		return "", errorf(path(p, "type"), "file sources (Anthropic's Files API) cannot be passed to this model's upstream")
	}
	return "", errorf(path(p, "type"), "Input should be 'base64' or 'url'")
}

// documentParts translates a document block: a base64 PDF becomes a chat
// file part, plain text and content sources their text and image parts.
// URL and file sources have no chat form.
func documentParts(b gjson.Result, p string) ([]any, error) {
	src, sp := b.Get("source"), path(p, "source")
	if !src.IsObject() {
		return nil, errorf(sp, "Field required")
	}
	switch t := src.Get("type").Str; t {
	case "base64":
		if mt := src.Get("media_type"); mt.Str != "application/pdf" {
			return nil, errorf(path(sp, "media_type"), "Input should be 'application/pdf'")
		}
		data, err := str(src.Get("data"), path(sp, "data"), true)
		name := b.Get("title").Str
		if name == "" {
			name = "document.pdf"
		}
		return []any{filePart{Type: "file", File: fileData{Filename: name, FileData: "data:application/pdf;base64," + data}}}, err
	case "text":
		data, err := str(src.Get("data"), path(sp, "data"), true)
		return []any{textPart{Type: "text", Text: data}}, err
	case "content":
		return contentSource(src.Get("content"), path(sp, "content"))
	case "url", "file":
		return nil, errorf(path(sp, "type"), "document %s sources cannot be passed to this model's upstream: send the document as base64 data", t)
	}
	return nil, errorf(path(sp, "type"), "Input should be 'base64', 'text', 'content', 'url' or 'file'")
}

// contentSource translates a document's content source: a string or text
// and image blocks.
func contentSource(c gjson.Result, p string) ([]any, error) {
	if c.Type == gjson.String {
		return []any{textPart{Type: "text", Text: c.Str}}, nil
	}
	if !c.IsArray() {
		return nil, errorf(p, "Input should be a valid string or a list of content blocks")
	}
	var parts []any
	for i, cb := range c.Array() {
		bp := path(p, i)
		if t := cb.Get("type").Str; t != "text" && t != "image" {
			return nil, badBlockType(cb, bp)
		}
		ps, err := userContent(cb, bp)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ps...)
	}
	return parts, nil
}

// assistantTurn translates an assistant turn: its text, its tool_use
// blocks as tool calls, its thinking blocks as thinking_blocks (kept as
// sent, for an upstream that can check their signatures).
func assistantTurn(content gjson.Result, p string) ([]chatMessage, error) {
	if content.Type == gjson.String {
		return []chatMessage{{Role: "assistant", Content: content.Str}}, nil
	}
	m := chatMessage{Role: "assistant"}
	var text strings.Builder
	for i, b := range content.Array() {
		bp := path(p, i)
		if !b.IsObject() {
			return nil, errorf(bp, "Input should be a valid dictionary")
		}
		var err error
		switch typ := b.Get("type").Str; typ {
		case "text":
			var s string
			s, err = textBlock(b, bp)
			text.WriteString(s)
		case "tool_use":
			var tc chatToolCall
			tc, err = toolUse(b, bp)
			m.ToolCalls = append(m.ToolCalls, tc)
		case "thinking", "redacted_thinking":
			err = checkThinking(b, bp)
			m.ThinkingBlocks = append(m.ThinkingBlocks, json.RawMessage(b.Raw))
		case "image", "document", "tool_result":
			err = errorf(path(bp, "type"), "`%s` blocks are only allowed in user messages", typ)
		default:
			err = badBlockType(b, bp)
		}
		if err != nil {
			return nil, err
		}
	}
	if text.Len() > 0 || len(m.ToolCalls) == 0 {
		m.Content = text.String()
	}
	return []chatMessage{m}, nil
}

// toolUse translates a tool_use block into a chat tool call.
func toolUse(b gjson.Result, p string) (chatToolCall, error) {
	id, err := str(b.Get("id"), path(p, "id"), true)
	if err != nil {
		return chatToolCall{}, err
	}
	name, err := str(b.Get("name"), path(p, "name"), true)
	if err != nil {
		return chatToolCall{}, err
	}
	input := b.Get("input")
	if !input.IsObject() {
		return chatToolCall{}, errorf(path(p, "input"), "Input should be a valid dictionary")
	}
	var args bytes.Buffer
	json.Compact(&args, []byte(input.Raw)) // valid: the body was
	return chatToolCall{ID: inID(id), Type: "function", Function: chatFunction{Name: name, Arguments: args.String()}}, nil
}

// checkThinking checks a thinking or redacted_thinking block's fields.
func checkThinking(b gjson.Result, p string) error {
	if b.Get("type").Str == "redacted_thinking" {
		_, err := str(b.Get("data"), path(p, "data"), true)
		return err
	}
	if _, err := str(b.Get("thinking"), path(p, "thinking"), true); err != nil {
		return err
	}
	_, err := str(b.Get("signature"), path(p, "signature"), true)
	return err
}
