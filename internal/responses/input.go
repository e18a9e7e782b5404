package responses

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// indexed returns param[i].
func indexed(param string, i int) string { return param + "[" + strconv.Itoa(i) + "]" }

// builtinItems are the item types of OpenAI's hosted and client-run
// built-in tools, which only OpenAI's own servers can take.
var builtinItems = []string{"file_search_call", "web_search_call", "computer_call",
	"computer_call_output", "code_interpreter_call", "image_generation_call",
	"local_shell_call", "local_shell_call_output", "shell_call", "shell_call_output",
	"apply_patch_call", "apply_patch_call_output", "mcp_list_tools", "mcp_approval_request",
	"mcp_approval_response", "mcp_call", "tool_search_call", "tool_search_output",
	"additional_tools", "compaction", "custom_tool_call", "custom_tool_call_output"}

// parseInput reads input: a string, or an array of items, each checked
// and normalized (a message without "type" gets "type":"message").
func (r *Request) parseInput(root gjson.Result) error {
	v := root.Get("input")
	switch {
	case !present(v):
		return missing("input")
	case v.Type == gjson.String:
		item, _ := json.Marshal(message{Type: "message", Role: "user", Content: []textPart{{"input_text", v.Str}}})
		r.input = []json.RawMessage{item}
		return nil
	case !v.IsArray():
		return invalidType("input", "a string or an array of input items")
	}
	for i, x := range v.Array() {
		item, err := checkItem(x, indexed("input", i))
		var fe *FieldError
		if errors.As(err, &fe) && fe.NativeOnly {
			r.noteNativeOnly(fe)
			item, err = compact(x), nil
		}
		if err != nil {
			return err
		}
		r.input = append(r.input, item)
	}
	return nil
}

// message and textPart render the item a string input stands for.
type message struct {
	Type    string     `json:"type"`
	Role    string     `json:"role"`
	Content []textPart `json:"content"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// checkItem validates one input item and returns its normalized JSON.
func checkItem(x gjson.Result, p string) (json.RawMessage, error) {
	if !x.IsObject() {
		return nil, invalidType(p, "an object")
	}
	typ := x.Get("type")
	if present(typ) && typ.Type != gjson.String {
		return nil, invalidType(p+".type", "a string")
	}
	var err error
	switch t := typ.Str; {
	case t == "message" || t == "" && x.Get("role").Exists():
		err = checkMessage(x, p)
	case t == "function_call":
		err = checkCall(x, p)
	case t == "function_call_output":
		err = checkCallOutput(x, p)
	case t == "reasoning":
		err = checkReasoning(x, p)
	case t == "item_reference" || t == "" && x.Get("id").Exists():
		err = unsupported(p, "Item references cannot be resolved by Switchyard: send the item itself, or use previous_response_id.")
	case t == "":
		err = missing(p + ".type")
	case slices.Contains(builtinItems, t):
		err = nativeOnly(p+".type", "Input items of type '%s' belong to built-in or custom tools, which Switchyard cannot run; only message, function_call, function_call_output and reasoning items are supported.", t)
	default:
		err = invalidValue(p+".type", "unknown input item type '%s'.", t)
	}
	if err != nil {
		return nil, err
	}
	item := compact(x)
	switch {
	case typ.Str != "":
	case typ.Exists(): // "type": null
		item, _ = sjson.SetBytes(item, "type", "message")
	default:
		item = append([]byte(`{"type":"message",`), item[1:]...)
	}
	return item, nil
}

// roles are the message roles of the Responses API.
var roles = []string{"user", "assistant", "system", "developer"}

// checkMessage validates a message: its role and its content, a string or
// a list of parts.
func checkMessage(x gjson.Result, p string) error {
	if _, err := optEnum(x.Get("role"), p+".role", roles...); err != nil {
		return err
	}
	if !present(x.Get("role")) {
		return missing(p + ".role")
	}
	c := x.Get("content")
	switch {
	case !present(c):
		return missing(p + ".content")
	case c.Type == gjson.String:
		return nil
	case !c.IsArray():
		return invalidType(p+".content", "a string or an array of content parts")
	}
	for j, part := range c.Array() {
		if err := checkPart(part, indexed(p+".content", j), false); err != nil {
			return err
		}
	}
	return nil
}

// checkPart validates one content part (of a message, or of a function
// call's output when output is set, where only input parts may appear).
func checkPart(part gjson.Result, p string, output bool) error {
	if !part.IsObject() {
		return invalidType(p, "an object")
	}
	t, err := reqString(part.Get("type"), p+".type")
	if err != nil {
		return err
	}
	switch {
	case t == "input_text" || t == "output_text" && !output:
		_, err = reqString(part.Get("text"), p+".text")
	case t == "refusal" && !output:
		_, err = reqString(part.Get("refusal"), p+".refusal")
	case t == "input_image":
		err = oneOf(part, p, "image_url", "file_id")
	case t == "input_file":
		err = oneOf(part, p, "file_id", "file_data", "file_url")
	default:
		err = invalidValue(p+".type", "unknown content part type '%s'.", t)
	}
	return err
}

// oneOf checks that part has at least one of the string members names,
// and that all of them that it has are strings.
func oneOf(part gjson.Result, p string, names ...string) error {
	found := false
	for _, n := range names {
		s, err := optString(part.Get(n), p+"."+n)
		if err != nil {
			return err
		}
		found = found || s != ""
	}
	if !found {
		return missing(p + "." + names[0])
	}
	return nil
}

// checkCall validates a function_call item: call_id, name and arguments,
// all strings.
func checkCall(x gjson.Result, p string) error {
	for _, k := range []string{"call_id", "name", "arguments"} {
		if _, err := reqString(x.Get(k), p+"."+k); err != nil {
			return err
		}
	}
	return nil
}

// checkCallOutput validates a function_call_output item: call_id (up to
// 64 characters) and output, a string or a list of input parts.
func checkCallOutput(x gjson.Result, p string) error {
	id, err := reqString(x.Get("call_id"), p+".call_id")
	if err != nil {
		return err
	}
	if len(id) > 64 {
		return invalidValue(p+".call_id", "longer than 64 characters.")
	}
	out := x.Get("output")
	switch {
	case !present(out):
		return missing(p + ".output")
	case out.Type == gjson.String:
		return nil
	case !out.IsArray():
		return invalidType(p+".output", "a string or an array of content parts")
	}
	for j, part := range out.Array() {
		if err := checkPart(part, indexed(p+".output", j), true); err != nil {
			return err
		}
	}
	return nil
}

// checkReasoning validates a reasoning item: summary, when present, an
// array; encrypted_content, when present, a string.
func checkReasoning(x gjson.Result, p string) error {
	if s := x.Get("summary"); present(s) && !s.IsArray() {
		return invalidType(p+".summary", "an array")
	}
	_, err := optString(x.Get("encrypted_content"), p+".encrypted_content")
	return err
}

// InputItems returns the request's input as normalized items: a string
// input becomes one user message with one input_text part, and each
// item is the client's JSON (compacted; a message without "type" gets
// "type":"message").
func (r *Request) InputItems() []json.RawMessage { return r.input }

// SetHistory sets the items that precede the input: a previous response
// chain, flattened (its input items then its output items, oldest
// first). Chat puts them after the instructions and before the input.
func (r *Request) SetHistory(items []json.RawMessage) { r.history = items }
