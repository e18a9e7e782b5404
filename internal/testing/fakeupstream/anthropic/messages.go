package fakeanthropic

import (
	"slices"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

var messageFields = keys("role", "content")

// turnState carries what one message leaves for the checks of the next.
type turnState struct {
	role    string
	uses    []string // tool_use ids of an assistant message
	index   int      // the assistant message's index
	allUses []string // every tool_use id so far: they must be unique
}

// checkConversation checks messages: roles alternating from user, content
// blocks, and tool results pairing with the tool uses right before them.
func (q *request) checkConversation(root gjson.Result) error {
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return invalid("messages: Input should be a valid list")
	}
	arr := msgs.Array()
	if len(arr) == 0 {
		return invalid("messages: at least one message is required")
	}
	st := &turnState{}
	for i, m := range arr {
		if err := q.checkMessage(st, i, m, i == len(arr)-1); err != nil {
			return err
		}
	}
	if len(st.uses) > 0 {
		return errNoResults(st.index, st.uses)
	}
	return checkFinal(arr[len(arr)-1])
}

func (q *request) checkMessage(st *turnState, i int, m gjson.Result, last bool) error {
	p := at("messages", i)
	if !m.IsObject() {
		return invalid("%s: Input should be a valid dictionary", p)
	}
	if err := checkKeys(m, p, messageFields); err != nil {
		return err
	}
	role := m.Get("role").Str
	switch {
	case role != "user" && role != "assistant":
		return invalid("%s.role: Input should be 'user' or 'assistant'", p)
	case i == 0 && role != "user":
		return invalid(`messages: first message must use the "user" role`)
	case role == st.role:
		return invalid(`messages: roles must alternate between "user" and "assistant", but found multiple %q roles in a row`, role)
	}
	blocks, err := contentBlocks(p, m.Get("content"), role == "assistant" && last)
	if err != nil {
		return err
	}
	for j, b := range blocks {
		if err := checkBlock(at(p+".content", j), role, b); err != nil {
			return err
		}
	}
	q.prompt += 3
	if role == "user" {
		q.readUser(blocks)
		err = q.checkResults(st, i, blocks)
	} else {
		err = q.noteUses(st, i, p, blocks)
	}
	st.role = role
	return err
}

// contentBlocks returns the content as blocks: a string is one text block.
// Only a final assistant message may be empty.
func contentBlocks(p string, content gjson.Result, mayBeEmpty bool) ([]gjson.Result, error) {
	var blocks []gjson.Result
	switch {
	case content.Type == gjson.String:
		if content.Str != "" {
			blocks = []gjson.Result{gjson.Parse(`{"type":"text","text":` + string(gjson.AppendJSONString(nil, content.Str)) + `}`)}
		}
	case content.IsArray():
		blocks = content.Array()
	default:
		return nil, invalid("%s.content: Input should be a valid string or list", p)
	}
	if len(blocks) == 0 && !mayBeEmpty {
		return nil, invalid("%s: all messages must have non-empty content except for the optional final assistant message", p)
	}
	return blocks, nil
}

// readUser notes the text of the latest user message and counts it.
func (q *request) readUser(blocks []gjson.Result) {
	var texts []string
	q.answered = false
	for _, b := range blocks {
		switch b.Get("type").Str {
		case "text":
			texts = append(texts, b.Get("text").Str)
		case "tool_result":
			q.answered = true
			q.prompt += countWords(b.Get("content").String())
		}
	}
	q.lastUser = strings.Join(texts, " ")
	q.prompt += countWords(q.lastUser)
}

// noteUses records an assistant message's tool_use ids, which must be
// unique in the request and answered in the next message.
func (q *request) noteUses(st *turnState, i int, p string, blocks []gjson.Result) error {
	st.uses, st.index = nil, i
	for j, b := range blocks {
		switch b.Get("type").Str {
		case "text":
			q.prompt += countWords(b.Get("text").Str)
		case "tool_use":
			id := b.Get("id").Str
			if slices.Contains(st.allUses, id) {
				return invalid("%s: `tool_use` ids must be unique", at(p+".content", j))
			}
			st.uses = append(st.uses, id)
			st.allUses = append(st.allUses, id)
			q.toolBlocks = true
		}
	}
	return nil
}

// checkResults checks a user message against the tool uses before it:
// results first, each answering one of them, and all of them answered.
func (q *request) checkResults(st *turnState, i int, blocks []gjson.Result) error {
	p := at("messages", i)
	var seen []string
	other := false
	for j, b := range blocks {
		bp := at(p+".content", j)
		if b.Get("type").Str != "tool_result" {
			other = true
			continue
		}
		q.toolBlocks = true
		id := b.Get("tool_use_id").Str
		switch {
		case other:
			return invalid("%s: `tool_result` blocks must come before any other content in the message", bp)
		case !slices.Contains(st.uses, id):
			return invalid("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", bp, id)
		case slices.Contains(seen, id):
			return invalid("%s: each `tool_use` must have a single `tool_result` block: %s", bp, id)
		}
		seen = append(seen, id)
	}
	var missing []string
	for _, id := range st.uses {
		if !slices.Contains(seen, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return errNoResults(i, missing)
	}
	st.uses = nil
	return nil
}

// errNoResults is fixture error_400_tool_result_missing.json: message i
// (the one that should hold the results) lacks results for ids.
func errNoResults(i int, ids []string) error {
	return invalid("%s: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
		at("messages", i), strings.Join(ids, ", "))
}

// checkFinal refuses a final assistant message (a prefill) that ends in
// whitespace.
func checkFinal(m gjson.Result) error {
	if m.Get("role").Str != "assistant" {
		return nil
	}
	text := m.Get("content")
	if text.IsArray() {
		blocks := text.Array()
		if len(blocks) == 0 || blocks[len(blocks)-1].Get("type").Str != "text" {
			return nil
		}
		text = blocks[len(blocks)-1].Get("text")
	}
	if s := text.Str; s != strings.TrimRightFunc(s, unicode.IsSpace) {
		return invalid("messages: final assistant content cannot end with trailing whitespace")
	}
	return nil
}
