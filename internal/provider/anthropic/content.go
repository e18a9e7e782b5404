package anthropic

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
)

// textBlock appends a text block of s unless s is empty or blank:
// Anthropic rejects text blocks without non-whitespace text.
func textBlock(dst []block, s string) []block {
	if strings.TrimSpace(s) == "" {
		return dst
	}
	return append(dst, block{Type: "text", Text: s})
}

// textParts reads a content that may hold only text: a string or text
// parts (and refusal parts in assistant messages).
func textParts(p string, content gjson.Result, assistant bool) ([]block, error) {
	switch {
	case !present(content):
		return nil, nil
	case content.Type == gjson.String:
		return textBlock(nil, content.Str), nil
	case !content.IsArray():
		return nil, refuse(p, "Expected a string or an array of content parts.")
	}
	var out []block
	for j, part := range content.Array() {
		switch t := part.Get("type").Str; {
		case t == "text":
			out = textBlock(out, part.Get("text").Str)
		case t == "refusal" && assistant:
			out = textBlock(out, part.Get("refusal").Str)
		default:
			return nil, refuse(fmt.Sprintf("%s[%d].type", p, j), "Content part type %q is not allowed here.", t)
		}
	}
	return out, nil
}

// userBlocks translates a user message's content.
func userBlocks(p string, content gjson.Result) ([]block, error) {
	switch {
	case !present(content):
		return nil, nil
	case content.Type == gjson.String:
		return textBlock(nil, content.Str), nil
	case !content.IsArray():
		return nil, refuse(p, "Expected a string or an array of content parts.")
	}
	var out []block
	for j, part := range content.Array() {
		pp := fmt.Sprintf("%s[%d]", p, j)
		switch t := part.Get("type").Str; t {
		case "text":
			out = textBlock(out, part.Get("text").Str)
		case "image_url":
			b, err := imageBlock(pp+".image_url.url", imageURL(part))
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		case "file":
			b, err := fileBlock(pp+".file", part.Get("file"))
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		case "input_audio":
			return nil, unsupported(pp+".type", "Audio input is not supported for Anthropic models.")
		default:
			return nil, refuse(pp+".type", "Content part type %q is not supported.", t)
		}
	}
	return out, nil
}

// imageURL reads image_url.url, or image_url itself when a client sent
// the URL as a string.
func imageURL(part gjson.Result) string {
	if u := part.Get("image_url"); u.Type == gjson.String {
		return u.Str
	}
	return part.Get("image_url.url").Str
}

// imageTypes are the image media types Anthropic accepts.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// imageBlock translates an image URL: a base64 data URL becomes a base64
// source, an http(s) URL a url source (Anthropic fetches it).
func imageBlock(p, u string) (block, error) {
	if strings.HasPrefix(u, "data:") {
		mt, data, ok := parseDataURL(u)
		if !ok {
			return block{}, refuse(p, "Expected an http(s) URL or a base64 data URL.")
		}
		if !imageTypes[mt] {
			return block{}, unsupported(p, "Image type %q is not supported for Anthropic models; use JPEG, PNG, GIF or WebP.", mt)
		}
		return block{Type: "image", Source: &source{Type: "base64", MediaType: mt, Data: data}}, nil
	}
	if pu, err := url.Parse(u); err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != "" {
		return block{Type: "image", Source: &source{Type: "url", URL: u}}, nil
	}
	return block{}, refuse(p, "Expected an http(s) URL or a base64 data URL.")
}

// parseDataURL splits data:<media type>[;params];base64,<data>. The media
// type is lower-cased and image/jpg read as image/jpeg.
func parseDataURL(u string) (mediaType, data string, ok bool) {
	meta, data, found := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !found || data == "" || !strings.HasSuffix(strings.ToLower(meta), ";base64") {
		return "", "", false
	}
	mediaType, _, _ = strings.Cut(meta, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	if mediaType == "image/jpg" {
		mediaType = "image/jpeg"
	}
	return mediaType, data, mediaType != ""
}

// fileBlock translates a file part holding a PDF's bytes into a document
// block. OpenAI file IDs mean nothing to Anthropic.
func fileBlock(p string, file gjson.Result) (block, error) {
	if present(file.Get("file_id")) {
		return block{}, unsupported(p+".file_id", "OpenAI file IDs cannot be sent to Anthropic models; send file_data.")
	}
	fd := file.Get("file_data").Str
	if fd == "" {
		return block{}, refuse(p+".file_data", "Expected file_data.")
	}
	mt, data := "application/pdf", fd
	if strings.HasPrefix(fd, "data:") {
		var ok bool
		if mt, data, ok = parseDataURL(fd); !ok {
			return block{}, refuse(p+".file_data", "Expected base64 data or a base64 data URL.")
		}
	}
	if mt != "application/pdf" {
		return block{}, unsupported(p+".file_data", "Only PDF files are supported for Anthropic models, not %q.", mt)
	}
	return block{Type: "document", Source: &source{Type: "base64", MediaType: mt, Data: data}}, nil
}

// toolInput is a call's arguments as the object Anthropic wants: the
// parsed arguments when they are a JSON object, {} when empty, and
// {"arguments": "<raw>"} otherwise (models do produce invalid JSON; the
// history keeps what was said).
func toolInput(args gjson.Result) json.RawMessage {
	switch {
	case args.IsObject():
		return json.RawMessage(args.Raw)
	case !present(args):
		return json.RawMessage(`{}`)
	case args.Type != gjson.String:
		return wrapArguments(args.Raw)
	}
	s := strings.TrimSpace(args.Str)
	if s == "" {
		return json.RawMessage(`{}`)
	}
	if gjson.Valid(s) && gjson.Parse(s).IsObject() {
		return json.RawMessage(s)
	}
	return wrapArguments(args.Str)
}

func wrapArguments(raw string) json.RawMessage {
	b, _ := marshal(map[string]string{"arguments": raw}) // a map of strings always encodes
	return b
}
