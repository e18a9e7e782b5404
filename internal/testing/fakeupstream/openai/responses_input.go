package fakeopenai

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Input items (inbound-apis 1.3): the fields each accepts.
var (
	respRoles    = []string{"user", "assistant", "system", "developer"}
	respParts    = []string{"input_text", "input_image", "input_file", "output_text", "refusal"}
	respItemKind = []string{"message", "function_call", "function_call_output", "reasoning", "item_reference"}
	respItems    = map[string]fields{
		"message": {"type": str, "role": enum(respRoles...), "content": stringOr(str, arrayOf(respPart, 0, math32)),
			"id": str, "status": str, "phase": str},
		"function_call": {"type": str, "call_id": str, "name": str, "arguments": str, "id": str, "status": str,
			"namespace": str, "caller": object},
		"function_call_output": {"type": str, "call_id": strMax(64), "output": stringOr(str, arrayOf(respPart, 0, math32)),
			"id": str, "status": str, "name": str, "namespace": str},
		"reasoning": {"type": str, "id": str, "summary": arrayOf(object, 0, math32), "encrypted_content": nullable(str),
			"content": arrayOf(object, 0, math32), "status": str},
		"item_reference": {"type": str, "id": str},
	}
	respItemRequired = map[string][]string{
		"message":              {"role", "content"},
		"function_call":        {"call_id", "name", "arguments"},
		"function_call_output": {"call_id", "output"},
		"reasoning":            {"summary"},
		"item_reference":       {"id"},
	}
)

const math32 = 1 << 31

// respPart checks one content part: an object with a known type.
func respPart(v gjson.Result, p string) error {
	if err := object(v, p); err != nil {
		return err
	}
	t := v.Get("type")
	if !t.Exists() {
		return errMissing(p + ".type")
	}
	return enum(respParts...)(t, p+".type")
}

// itemKind is an input item's type: a message when it has no type but a
// role, a reference when it has only an id.
func itemKind(item gjson.Result) string {
	if t := item.Get("type"); t.Exists() {
		return t.Str
	}
	if item.Get("role").Exists() {
		return "message"
	}
	return "item_reference"
}

// inputState follows the pairing rules across the input items.
type inputState struct {
	calls      []string // call_ids of function_call items
	outputs    []string // call_ids answered by function_call_output items
	reasonings []string // ids of reasoning items so far
}

// readInput checks and reads input: each item, the pairing of calls and
// outputs, and of a reasoning model's items with their reasoning items.
func (q *respRequest) readInput(input gjson.Result) error {
	if input.Type == gjson.String {
		q.lastUser, q.prompt = input.Str, countWords(input.Str)+3
		return nil
	}
	st := &inputState{}
	for i, item := range input.Array() {
		if err := q.readItem(st, index("input", i), item); err != nil {
			return err
		}
	}
	for _, id := range st.calls {
		if !slices.Contains(st.outputs, id) {
			return badRequest("input", "", "No tool output found for function call %s.", id)
		}
	}
	return nil
}

func (q *respRequest) readItem(st *inputState, p string, item gjson.Result) error {
	kind := itemKind(item)
	if !slices.Contains(respItemKind, kind) {
		return errValue(p+".type", kind, respItemKind)
	}
	if err := checkObject(item, p, respItems[kind], respItemRequired[kind]...); err != nil {
		return err
	}
	if err := checkPaired(st, kind, item.Get("id").Str); err != nil {
		return err
	}
	q.prompt += 3
	q.answered = false
	switch kind {
	case "message":
		text := respText(item.Get("content"))
		q.prompt += countWords(text)
		if item.Get("role").Str == "user" {
			q.lastUser = text
		}
	case "function_call":
		st.calls = append(st.calls, item.Get("call_id").Str)
		q.prompt += countWords(item.Get("arguments").Str)
	case "function_call_output":
		id := item.Get("call_id").Str
		if !slices.Contains(st.calls, id) {
			return badRequest("input", "", "No tool call found for function call output with call_id %s.", id)
		}
		st.outputs = append(st.outputs, id)
		q.prompt += countWords(respText(item.Get("output")))
		q.answered = true
	case "reasoning":
		st.reasonings = append(st.reasonings, item.Get("id").Str)
	case "item_reference":
		return badRequest("input", "", "Item with id '%s' not found.", item.Get("id").Str)
	}
	return nil
}

// checkPaired refuses an item a reasoning model produced together with a
// reasoning item (the fake's own IDs say which: reasonedID) when that
// reasoning item does not come before it.
func checkPaired(st *inputState, kind, id string) error {
	rs, ok := reasoningOf(id)
	if !ok || slices.Contains(st.reasonings, rs) {
		return nil
	}
	return badRequest("input", "", "Item '%s' of type '%s' was provided without its required 'reasoning' item: '%s'.", id, kind, rs)
}

// respText is the text of a content or output: the string, or its text
// parts joined by spaces.
func respText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var texts []string
	v.ForEach(func(_, part gjson.Result) bool {
		if t := part.Get("text"); t.Type == gjson.String {
			texts = append(texts, t.Str)
		}
		return true
	})
	return strings.Join(texts, " ")
}
