package openai

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

// chunkMembers are the top-level members of a streamed chunk that the
// relay looks at: their raw text, "" when absent (a value is never
// empty). A key named twice is the last one, as with gjson's ForEach.
type chunkMembers struct {
	failed, usage, groq, choices, id, object, model, created string
}

// set notes the member key, for jsonscan.Members.
func (m *chunkMembers) set(key, raw string) {
	switch key {
	case "error":
		m.failed = raw
	case "usage":
		m.usage = raw
	case "x_groq":
		m.groq = raw
	case "choices":
		m.choices = raw
	case "id":
		m.id = raw
	case "object":
		m.object = raw
	case "model":
		m.model = raw
	case "created":
		m.created = raw
	}
}

// isObject reports whether raw, a valid JSON value or "", is an object.
func isObject(raw string) bool { return strings.HasPrefix(raw, "{") }

// stringOf returns the string raw, a valid JSON value or "", holds,
// unescaped as gjson's Str is: in place when it has no escape; "" when
// raw is not a string.
func stringOf(raw string) string {
	if !strings.HasPrefix(raw, `"`) {
		return ""
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	return gjson.Parse(raw).Str
}

// intOf returns raw, a valid JSON value or "", as gjson's Int reads it.
// The usual value, a Unix time, is read digit by digit: gjson parses a
// float first, and strconv.ParseInt alone cost more than the rest of the
// chunk's head.
func intOf(raw string) int64 {
	if len(raw) == 0 || len(raw) > 18 { // 18 digits cannot overflow
		return gjson.Parse(raw).Int()
	}
	var n int64
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return gjson.Parse(raw).Int()
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// countChoices adds the text of a chunk's choices to the gateway's
// count. The choices are read with jsonscan's readers, which neither
// parse numbers nor copy strings; a choice they cannot read (a key with
// an escape) is read with gjson, as is a choices member that is not an
// array (gjson's ForEach then reads an object's values as choices).
func (s *stream) countChoices(choices string) {
	if !strings.HasPrefix(choices, "[") {
		gjson.Parse(choices).ForEach(func(_, ch gjson.Result) bool {
			s.countChoiceGJSON(ch)
			return true
		})
		return
	}
	jsonscan.EachElement(choices, func(ch string) bool {
		if !s.countChoice(ch) {
			s.countChoiceGJSON(gjson.Parse(ch))
		}
		return true
	})
}

// countChoice adds the text of a chunk's choice to the gateway's count:
// its delta's content, tool call arguments (of the first call) and
// function call arguments, or a legacy completion's text. It reports
// false, having counted nothing, when the choice is not an object whose
// keys jsonscan.EachMember reads. A choice's delta and text are its first
// ones, as gjson's Get finds them; the delta's members are each counted,
// as gjson's ForEach reads them.
func (s *stream) countChoice(ch string) bool {
	var delta, text string
	ok := jsonscan.EachMember(ch, func(k, v string) bool {
		switch {
		case k == "delta" && delta == "":
			delta = v
		case k == "text" && text == "":
			text = v
		}
		return true
	})
	switch {
	case !ok:
		return false
	case delta == "":
		s.text.Add(stringOf(text)) // legacy completions
		return true
	}
	// The delta is read with Members, which reads escaped keys too, so
	// that nothing is counted twice: the choice checked, it cannot fail.
	jsonscan.Members(delta, func(k, v string) {
		switch k {
		case "content":
			s.text.Add(stringOf(v))
		case "tool_calls":
			s.text.Add(gjson.Get(v, "0.function.arguments").Str)
		case "function_call":
			s.text.Add(gjson.Get(v, "arguments").Str)
		}
	})
	return true
}

// countChoiceGJSON is countChoice for what jsonscan's readers leave to
// gjson. The choice's keys are looked up (Get) rather than walked
// (ForEach): ForEach parses every value, and parsing the choice's index,
// a number, takes a kilobyte of stack (strconv's float parser) on top of
// the relay's, which doubles the stack an open stream keeps to 16 KiB
// (issue 18).
func (s *stream) countChoiceGJSON(ch gjson.Result) {
	delta := ch.Get("delta")
	if !delta.Exists() {
		s.text.Add(ch.Get("text").Str) // legacy completions
		return
	}
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			s.text.Add(v.Str)
		case "tool_calls":
			s.text.Add(v.Get("0.function.arguments").Str)
		case "function_call":
			s.text.Add(v.Get("arguments").Str)
		}
		return true
	})
}
