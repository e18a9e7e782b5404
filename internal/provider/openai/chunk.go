package openai

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// chunkMembers are the top-level members of a streamed chunk that the
// relay looks at: their raw text, "" when absent (a value is never
// empty). A key named twice is the last one, as with gjson's ForEach.
type chunkMembers struct {
	failed, usage, groq, id, object, model, created string
	noChoices                                       bool // the choices are an empty array
	// The texts of the choices to count: in room, then in more. A chunk
	// has a text for each choice, and rarely two (content beside
	// tool_calls or function_call): room holds those of up to eight
	// choices on the stack of edit, where m lives, so that only a chunk
	// of more (n > 8, seldom asked) allocates. The texts are kept rather
	// than counted as they are read because a usage object later in the
	// chunk means they are not counted at all.
	room [8]chunkText
	n    int
	more []chunkText
}

// read checks a chunk and reads, in one pass, what the relay looks at:
// its top-level members, and the texts of its choices (issue 18: it took
// a check, then walks of the members and of the choices with gjson).
// What m holds is read in place: the chunk must not change while it is
// in use.
func (m *chunkMembers) read(data []byte) error {
	r := jsonscan.NewReader(jsonscan.View(data))
	err := r.Object(func(key string) error {
		if key == "choices" {
			m.n, m.more = 0, m.more[:0] // a repeated key: the last counts
			var err error
			m.noChoices, err = m.readChoices(&r)
			return err
		}
		raw, err := r.Skip()
		m.set(key, raw)
		return err
	})
	if err != nil {
		return err
	}
	return r.End()
}

// note keeps a text of the choices to count.
func (m *chunkMembers) note(t chunkText) {
	if m.n < len(m.room) {
		m.room[m.n] = t
		m.n++
		return
	}
	m.more = append(m.more, t)
}

// count adds the texts of the choices to t.
func (m *chunkMembers) count(t *tokens.Text) {
	for _, c := range m.room[:m.n] {
		t.Add(c.String())
	}
	for _, c := range m.more {
		t.Add(c.String())
	}
}

// set notes the member key.
func (m *chunkMembers) set(key, raw string) {
	switch key {
	case "error":
		m.failed = raw
	case "usage":
		m.usage = raw
	case "x_groq":
		m.groq = raw
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

// readChoices reads a chunk's choices, noting their texts, and reports
// whether they are an empty array. As gjson's ForEach did, an object's
// values are read as choices, and any other value holds none.
func (m *chunkMembers) readChoices(r *jsonscan.Reader) (empty bool, err error) {
	switch r.Peek() {
	case '[':
		n := 0
		err = r.Array(func() error {
			n++
			return m.readChoice(r)
		})
		return n == 0, err
	case '{':
		return false, r.Object(func(string) error { return m.readChoice(r) })
	}
	_, err = r.Skip()
	return false, err
}

// readChoice notes the texts of a chunk's choice that the gateway
// counts: its delta's content, tool call arguments (of the first call)
// and function call arguments, or a legacy completion's text. As gjson's
// Get found them, a choice's delta and text are its first ones; the
// delta's members are each noted.
func (m *chunkMembers) readChoice(r *jsonscan.Reader) error {
	var text string
	delta := false
	err := r.Object(func(key string) error {
		switch {
		case key == "delta" && !delta:
			delta = true
			return r.Object(func(key string) error {
				switch key {
				case "content", "tool_calls", "function_call":
					raw, err := r.Skip()
					m.note(chunkText{key, raw})
					return err
				}
				return nil // skipped
			})
		case key == "text" && text == "":
			var err error
			text, err = r.Skip()
			return err
		}
		return nil
	})
	if !delta && text != "" {
		m.note(chunkText{"text", text}) // legacy completions
	}
	return err
}

// chunkText is a text of a chunk that the gateway counts: a member of a
// choice (or of its delta) and its raw value, read in place.
type chunkText struct{ key, raw string }

// String returns the text to count.
func (t chunkText) String() string {
	switch t.key {
	case "tool_calls":
		return gjson.Get(t.raw, "0.function.arguments").Str
	case "function_call":
		return gjson.Get(t.raw, "arguments").Str
	}
	return stringOf(t.raw) // content, or a legacy completion's text
}
