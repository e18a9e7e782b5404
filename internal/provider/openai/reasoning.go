package openai

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// historyFields are the gateway's chat extension for reasoning carried
// in assistant messages (another upstream's thinking, handed back by the
// client). OpenAI-compatible hosts do not take them: strict ones refuse
// unknown message fields.
var historyFields = []string{"reasoning_content", "thinking_blocks"}

// stripReasoning deletes the extension's fields from every message,
// leaving the rest of the body byte for byte. A body that does not name
// them is returned as is, without being parsed.
func stripReasoning(body []byte) ([]byte, error) {
	if !mentions(body, `_content"`, `"reasoning_content"`) && !mentions(body, `_blocks"`, `"thinking_blocks"`) {
		return body, nil
	}
	var paths []string
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		for _, f := range historyFields {
			if m.Get(f).Exists() {
				paths = append(paths, "messages."+strconv.Itoa(int(i.Int()))+"."+f)
			}
		}
		return true
	})
	for _, p := range paths {
		var err error
		if body, err = sjson.DeleteBytes(body, p); err != nil { // copies: the client's body is untouched
			return nil, fmt.Errorf("strip %s: %w", p, err)
		}
	}
	return body, nil
}

// mentions reports whether body holds name. The search starts with tail,
// which begins with '_': rare in chat text, so bytes.Index skips through
// it at memory speed where a leading '"' or letter would stop it at every
// string or word.
func mentions(body []byte, tail, name string) bool {
	return bytes.Contains(body, []byte(tail)) && bytes.Contains(body, []byte(name))
}
