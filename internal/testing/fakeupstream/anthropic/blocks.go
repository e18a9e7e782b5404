package fakeanthropic

import (
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
)

// blockFields lists, per role, the content block types allowed and their
// members.
var blockFields = map[string]map[string]map[string]bool{
	"user": {
		"text":        keys("type", "text", "cache_control", "citations"),
		"image":       keys("type", "source", "cache_control"),
		"document":    keys("type", "source", "cache_control", "title", "context", "citations"),
		"tool_result": keys("type", "tool_use_id", "content", "is_error", "cache_control"),
	},
	"assistant": {
		"text":              keys("type", "text", "cache_control", "citations"),
		"tool_use":          keys("type", "id", "name", "input", "cache_control"),
		"thinking":          keys("type", "thinking", "signature"),
		"redacted_thinking": keys("type", "data"),
	},
}

var imageTypes = keys("image/jpeg", "image/png", "image/gif", "image/webp")

// checkBlock checks one content block of a message with role.
func checkBlock(p, role string, b gjson.Result) error {
	if !b.IsObject() {
		return invalid("%s: Input should be a valid dictionary", p)
	}
	typ := b.Get("type").Str
	fields, ok := blockFields[role][typ]
	if !ok {
		return invalid("%s.type: Input tag '%s' found using 'type' does not match any of the expected tags for a %s message", p, typ, role)
	}
	if err := checkKeys(b, p, fields); err != nil {
		return err
	}
	switch typ {
	case "text":
		return checkText(p, b)
	case "image":
		return checkSource(p+".source", b.Get("source"), imageTypes)
	case "document":
		return checkSource(p+".source", b.Get("source"), keys("application/pdf"))
	case "tool_use":
		return checkToolUse(p, b)
	case "tool_result":
		return checkToolResult(p, b)
	case "thinking":
		return checkThinkingBlock(p, b)
	case "redacted_thinking":
		if d := b.Get("data"); d.Type != gjson.String || !validRedacted(d.Str) {
			return invalid("%s: Invalid `data` in `redacted_thinking` block", p)
		}
	}
	return nil
}

// checkThinkingBlock checks a thinking block: text and signature, which
// must be the fake's for that text (a modified block is refused).
func checkThinkingBlock(p string, b gjson.Result) error {
	text, sig := b.Get("thinking"), b.Get("signature")
	switch {
	case text.Type != gjson.String:
		return invalid("%s.thinking: Field required", p)
	case sig.Type != gjson.String:
		return invalid("%s.signature: Field required", p)
	case !validSignature(text.Str, sig.Str):
		return invalid("%s: Invalid `signature` in `thinking` block", p)
	}
	return nil
}

// checkText checks a text block: Anthropic rejects empty and blank text.
func checkText(p string, b gjson.Result) error {
	t := b.Get("text")
	switch {
	case t.Type != gjson.String:
		return invalid("%s.text: Field required", p)
	case t.Str == "":
		return invalid("%s.text: text content blocks must be non-empty", p)
	case strings.TrimSpace(t.Str) == "":
		return invalid("%s.text: text content blocks must contain non-whitespace text", p)
	}
	return nil
}

// checkSource checks a base64 source of one of the media types, or an
// http(s) url source.
func checkSource(p string, src gjson.Result, mediaTypes map[string]bool) error {
	switch src.Get("type").Str {
	case "base64":
		if err := checkKeys(src, p, keys("type", "media_type", "data")); err != nil {
			return err
		}
		if mt := src.Get("media_type").Str; !mediaTypes[mt] {
			return invalid("%s.media_type: Input should be one of the supported media types, got %q", p, mt)
		}
		if d := src.Get("data"); d.Type != gjson.String || d.Str == "" {
			return invalid("%s.data: Field required", p)
		}
	case "url":
		if err := checkKeys(src, p, keys("type", "url")); err != nil {
			return err
		}
		u, err := url.Parse(src.Get("url").Str)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("%s.url: Input should be a valid http(s) URL", p)
		}
	default:
		return invalid("%s.type: Input tag %q found using 'type' does not match any of the expected tags: 'base64', 'url'", p, src.Get("type").Str)
	}
	return nil
}

// validID reports whether s matches ^[a-zA-Z0-9_-]+$, with at most max
// bytes (0: no limit).
func validID(s string, max int) bool {
	if s == "" || max > 0 && len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func checkToolUse(p string, b gjson.Result) error {
	if id := b.Get("id"); id.Type != gjson.String || !validID(id.Str, 0) {
		return invalid("%s.id: String should match pattern '^[a-zA-Z0-9_-]+$'", p)
	}
	if n := b.Get("name"); n.Type != gjson.String || !validID(n.Str, 64) {
		return invalid("%s.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", p)
	}
	if !b.Get("input").IsObject() {
		return invalid("%s.input: Input should be a valid dictionary", p)
	}
	return nil
}

// checkToolResult checks a tool_result: its id, and content that is a
// string or text and image blocks.
func checkToolResult(p string, b gjson.Result) error {
	if id := b.Get("tool_use_id"); id.Type != gjson.String || !validID(id.Str, 0) {
		return invalid("%s.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'", p)
	}
	if e := b.Get("is_error"); e.Exists() && !e.IsBool() {
		return invalid("%s.is_error: Input should be a valid boolean", p)
	}
	content := b.Get("content")
	switch {
	case !content.Exists() || content.Type == gjson.String:
		return nil
	case !content.IsArray():
		return invalid("%s.content: Input should be a valid string or list", p)
	}
	for j, c := range content.Array() {
		cp := at(p+".content", j)
		switch c.Get("type").Str {
		case "text":
			if err := checkText(cp, c); err != nil {
				return err
			}
		case "image":
			if err := checkSource(cp+".source", c.Get("source"), imageTypes); err != nil {
				return err
			}
		default:
			return invalid("%s.type: Input tag %q found using 'type' does not match any of the expected tags: 'text', 'image'", cp, c.Get("type").Str)
		}
	}
	return nil
}
