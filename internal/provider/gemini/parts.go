package gemini

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/tidwall/gjson"
)

// textParts reads a content that may hold only text: a string, or an
// array of text parts (and refusal parts, for the assistant). Empty texts
// are left out: Gemini refuses them.
func textParts(param string, c gjson.Result, assistant bool) ([]part, error) {
	if !present(c) {
		return nil, nil
	}
	if c.Type == gjson.String {
		return appendText(nil, c.Str), nil
	}
	if !c.IsArray() {
		return nil, refuse(codeInvalid, param, "Expected a string or an array of content parts.")
	}
	var parts []part
	for j, p := range c.Array() {
		switch t := p.Get("type").String(); {
		case t == "text" && p.Get("text").Type == gjson.String:
			parts = appendText(parts, p.Get("text").Str)
		case t == "refusal" && assistant && p.Get("refusal").Type == gjson.String:
			parts = appendText(parts, p.Get("refusal").Str)
		default:
			return nil, refuse(codeInvalid, fmt.Sprintf("%s[%d]", param, j), "Expected a text part here.")
		}
	}
	return parts, nil
}

func appendText(parts []part, s string) []part {
	if s == "" {
		return parts
	}
	return append(parts, part{Text: s})
}

// plainText is a text-only content as one string (parts joined by a
// newline), for function results.
func plainText(param string, c gjson.Result) (string, error) {
	parts, err := textParts(param, c, false)
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n"), err
}

// userParts reads a user content: text, images, audio and files.
func userParts(i int, c gjson.Result) ([]part, error) {
	param := msgParam(i, ".content")
	if !c.IsArray() {
		return textParts(param, c, false)
	}
	var parts []part
	for j, p := range c.Array() {
		pp := fmt.Sprintf("%s[%d]", param, j)
		var (
			x   part
			err error
		)
		switch t := p.Get("type").String(); t {
		case "text":
			if p.Get("text").Type != gjson.String {
				return nil, refuse(codeInvalid, pp+".text", "Expected a string.")
			}
			parts = appendText(parts, p.Get("text").Str)
			continue
		case "image_url":
			x, err = imagePart(pp+".image_url.url", p.Get("image_url"))
		case "input_audio":
			x, err = audioPart(pp+".input_audio", p.Get("input_audio"))
		case "file":
			x, err = filePart(pp+".file", p.Get("file"))
		default:
			return nil, refuse(codeUnsupported, pp+".type", "Content parts of type %q cannot be sent to Gemini.", t)
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, x)
	}
	return parts, nil
}

// imagePart: a base64 data URL is sent inline; an http(s) or gs:// URL is
// sent as fileData for Gemini to fetch, its type guessed from the path.
func imagePart(param string, img gjson.Result) (part, error) {
	u := img.Get("url")
	if img.Type == gjson.String {
		u = img
	}
	if u.Type != gjson.String {
		return part{}, refuse(codeInvalid, param, "Expected the image's URL.")
	}
	if strings.HasPrefix(u.Str, "data:") {
		b, ok := dataURL(u.Str)
		if !ok {
			return part{}, refuse(codeInvalid, param, "Expected a base64 data URL (data:<type>;base64,<data>).")
		}
		return part{InlineData: b}, nil
	}
	pu, err := url.Parse(u.Str)
	if err != nil || pu.Host == "" || !remoteSchemes[strings.ToLower(pu.Scheme)] {
		return part{}, refuse(codeInvalid, param, "Expected an http(s) or gs:// URL or a base64 data URL.")
	}
	mime := "image/*"
	if t, ok := imageTypes[strings.ToLower(path.Ext(pu.Path))]; ok {
		mime = t
	}
	return part{FileData: &fileData{MimeType: mime, FileURI: u.Str}}, nil
}

var remoteSchemes = map[string]bool{"http": true, "https": true, "gs": true}

var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".heic": "image/heic", ".heif": "image/heif",
}

// fileTypes are the documents whose type a file name tells.
var fileTypes = map[string]string{
	".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".html": "text/html", ".xml": "text/xml", ".json": "application/json",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
}

// audioPart sends input_audio inline as audio/wav or audio/mp3.
func audioPart(param string, a gjson.Result) (part, error) {
	format := a.Get("format").String()
	if format != "wav" && format != "mp3" {
		return part{}, refuse(codeInvalid, param+".format", "Expected wav or mp3.")
	}
	data := a.Get("data")
	if data.Type != gjson.String || !validBase64(data.Str) {
		return part{}, refuse(codeInvalid, param+".data", "Expected base64 audio data.")
	}
	return part{InlineData: &blob{MimeType: "audio/" + format, Data: data.Str}}, nil
}

// filePart sends file_data inline, typed by its data URL or its file
// name. OpenAI file IDs mean nothing to Gemini.
func filePart(param string, f gjson.Result) (part, error) {
	if present(f.Get("file_id")) {
		return part{}, refuse(codeUnsupported, param+".file_id", "OpenAI file IDs cannot be sent to Gemini; send file_data.")
	}
	data := f.Get("file_data")
	if data.Type != gjson.String {
		return part{}, refuse(codeInvalid, param+".file_data", "Expected the file's data.")
	}
	if strings.HasPrefix(data.Str, "data:") {
		if b, ok := dataURL(data.Str); ok {
			return part{InlineData: b}, nil
		}
		return part{}, refuse(codeInvalid, param+".file_data", "Expected a base64 data URL (data:<type>;base64,<data>).")
	}
	mime, ok := fileTypes[strings.ToLower(path.Ext(f.Get("filename").String()))]
	if !ok {
		return part{}, refuse(codeInvalid, param+".filename", "Cannot tell the file's type from its name; send file_data as a data URL.")
	}
	if !validBase64(data.Str) {
		return part{}, refuse(codeInvalid, param+".file_data", "Expected base64 data.")
	}
	return part{InlineData: &blob{MimeType: mime, Data: data.Str}}, nil
}

// dataURL splits data:<type>[;params];base64,<data>.
func dataURL(s string) (*blob, bool) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !ok {
		return nil, false
	}
	meta, isBase64 := strings.CutSuffix(meta, ";base64")
	mime, _, _ := strings.Cut(meta, ";")
	mime = strings.ToLower(strings.TrimSpace(mime))
	if !isBase64 || !validMIME(mime) || !validBase64(data) {
		return nil, false
	}
	return &blob{MimeType: mime, Data: data}, true
}

// validMIME reports a type/subtype made of token characters.
func validMIME(m string) bool {
	typ, sub, ok := strings.Cut(m, "/")
	return ok && token(typ) && token(sub)
}

func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validBase64 reports non-empty standard base64, decoding as it goes
// rather than into a copy of a possibly large image.
func validBase64(s string) bool {
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return false
	}
	_, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, strings.NewReader(s)))
	return err == nil
}
