package messages

import (
	"strings"

	"github.com/tidwall/gjson"
)

// parseSystem turns system (a string or text blocks) into the first chat
// message. Several blocks are joined by blank lines; their cache_control
// is dropped.
func parseSystem(r *Request, root gjson.Result) error {
	v := root.Get("system")
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	text, err := textOf(v, "system")
	if err != nil || text == "" {
		return err
	}
	r.chat.Messages = append(r.chat.Messages, chatMessage{Role: "system", Content: text})
	return nil
}

// textOf returns the text of a string or of an array of text blocks,
// joined by blank lines.
func textOf(v gjson.Result, param string) (string, error) {
	if v.Type == gjson.String {
		return v.Str, nil
	}
	if !v.IsArray() {
		return "", errorf(param, "Input should be a valid string or a list of text blocks")
	}
	texts := make([]string, 0, len(v.Array()))
	for i, b := range v.Array() {
		s, err := textBlock(b, path(param, i))
		if err != nil {
			return "", err
		}
		texts = append(texts, s)
	}
	return strings.Join(texts, "\n\n"), nil
}

// textBlock returns the text of a text block, which must be non-empty.
func textBlock(b gjson.Result, p string) (string, error) {
	if !b.IsObject() {
		return "", errorf(p, "Input should be a valid dictionary")
	}
	if t := b.Get("type"); t.Str != "text" {
		return "", errorf(path(p, "type"), "Input should be 'text'")
	}
	s, err := str(b.Get("text"), path(p, "text"), true)
	if err == nil && s == "" {
		err = errorf(path(p, "text"), "text content blocks must be non-empty")
	}
	return s, err
}

// parseMessages translates the turns, in order.
func parseMessages(r *Request, root gjson.Result) error {
	v := root.Get("messages")
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return errorf("messages", "Field required")
	case !v.IsArray():
		return errorf("messages", "Input should be a valid list")
	}
	for i, m := range v.Array() {
		msgs, err := turn(m, path("messages", i))
		if err != nil {
			return err
		}
		r.chat.Messages = append(r.chat.Messages, msgs...)
	}
	return nil
}

// turn translates one Messages turn into its chat messages.
func turn(m gjson.Result, p string) ([]chatMessage, error) {
	if !m.IsObject() {
		return nil, errorf(p, "Input should be a valid dictionary")
	}
	content := m.Get("content")
	if !content.Exists() || content.Type == gjson.Null {
		return nil, errorf(path(p, "content"), "Field required")
	}
	if content.Type != gjson.String && !content.IsArray() {
		return nil, errorf(path(p, "content"), "Input should be a valid string or a list of content blocks")
	}
	role := m.Get("role")
	switch {
	case role.Type == gjson.String && role.Str == "user":
		return userTurn(content, path(p, "content"))
	case role.Type == gjson.String && role.Str == "assistant":
		return assistantTurn(content, path(p, "content"))
	case role.Type == gjson.String && role.Str == "system":
		// A mid-conversation system turn (beta): a chat system message
		// in place.
		text, err := textOf(content, path(p, "content"))
		return []chatMessage{{Role: "system", Content: text}}, err
	case !role.Exists():
		return nil, errorf(path(p, "role"), "Field required")
	}
	return nil, errorf(path(p, "role"), "Input should be 'user' or 'assistant'")
}

// userParts collects a user turn: its tool results, which chat sends as
// tool messages ahead of the turn, and the parts of the rest.
type userParts struct {
	tools []chatMessage
	parts []any
	// lead are parts of tool results chat cannot put in a tool message
	// (images): they open the user message that follows the results.
	lead []any
}

func userTurn(content gjson.Result, p string) ([]chatMessage, error) {
	if content.Type == gjson.String {
		return []chatMessage{{Role: "user", Content: content.Str}}, nil
	}
	var u userParts
	for i, b := range content.Array() {
		if err := u.block(b, path(p, i)); err != nil {
			return nil, err
		}
	}
	msgs := u.tools
	parts := append(u.lead, u.parts...)
	switch {
	case len(parts) == 0 && len(u.tools) > 0:
	case len(parts) == 0:
		msgs = append(msgs, chatMessage{Role: "user", Content: ""})
	case len(parts) == 1 && isText(parts[0]):
		msgs = append(msgs, chatMessage{Role: "user", Content: parts[0].(textPart).Text})
	default:
		msgs = append(msgs, chatMessage{Role: "user", Content: parts})
	}
	return msgs, nil
}

func isText(part any) bool {
	_, ok := part.(textPart)
	return ok
}

// block adds one block of a user turn.
func (u *userParts) block(b gjson.Result, p string) error {
	if !b.IsObject() {
		return errorf(p, "Input should be a valid dictionary")
	}
	switch typ := b.Get("type").Str; typ {
	case "tool_result":
		return u.toolResult(b, p)
	case "text", "image", "document":
		parts, err := userContent(b, p)
		u.parts = append(u.parts, parts...)
		return err
	case "tool_use", "thinking", "redacted_thinking":
		return errorf(path(p, "type"), "`%s` blocks are only allowed in assistant messages", typ)
	default:
		return badBlockType(b, p)
	}
}

// userContent translates a text, image or document block into chat parts.
func userContent(b gjson.Result, p string) ([]any, error) {
	switch b.Get("type").Str {
	case "text":
		s, err := textBlock(b, p)
		return []any{textPart{Type: "text", Text: s}}, err
	case "image":
		u, err := imageURLOf(b.Get("source"), path(p, "source"))
		return []any{imagePart{Type: "image_url", ImageURL: imageURL{URL: u}}}, err
	case "document":
		return documentParts(b, p)
	}
	return nil, badBlockType(b, p)
}

// serverBlocks are the content blocks of Anthropic's server tools and
// features, which only Anthropic can serve.
var serverBlocks = map[string]bool{
	"server_tool_use": true, "web_search_tool_result": true, "web_fetch_tool_result": true,
	"code_execution_tool_result": true, "bash_code_execution_tool_result": true,
	"text_editor_code_execution_tool_result": true, "tool_search_tool_result": true,
	"mcp_tool_use": true, "mcp_tool_result": true, "container_upload": true, "search_result": true,
	"tool_reference": true,
}

// badBlockType refuses a block of a type that is missing, unknown or out
// of place.
func badBlockType(b gjson.Result, p string) error {
	t := b.Get("type")
	switch {
	case !t.Exists():
		return errorf(path(p, "type"), "Field required")
	case t.Type != gjson.String:
		return errorf(path(p, "type"), "Input should be a valid string")
	case serverBlocks[t.Str]:
		return nativeOnlyf(path(p, "type"), "`%s` blocks belong to Anthropic's server tools, which this model's upstream does not offer", t.Str)
	}
	return errorf(path(p, "type"), "Input tag '%s' found using 'type' is not allowed here", t.Str)
}
