package api

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

// chatRequest is what the handler needs to know about a valid chat body.
type chatRequest struct {
	Model        string
	Stream       bool
	IncludeUsage bool
	Sizes        gateway.Sizes
}

// checkChat validates a chat completion body.
func checkChat(body []byte) (chatRequest, *Error) {
	var f fields
	f.read(body)
	model, e := checkModel(&f)
	if e != nil {
		return chatRequest{}, e
	}
	if e := checkMessages(f.get("messages")); e != nil {
		return chatRequest{}, e
	}
	if e := checkSampling(&f); e != nil {
		return chatRequest{}, e
	}
	// Called one by one, not from a list of funcs: f stays on the stack.
	if e := checkChatExtras(&f); e != nil {
		return chatRequest{}, e
	}
	if e := checkFunctions(&f); e != nil {
		return chatRequest{}, e
	}
	if e := checkTools(&f); e != nil {
		return chatRequest{}, e
	}
	return chatRequest{
		Model:        model,
		Stream:       f.get("stream").Bool(),
		IncludeUsage: f.get("stream_options").Get("include_usage").Bool(),
		Sizes:        f.sizes(1),
	}, nil
}

func checkChatExtras(f *fields) *Error {
	if e := checkInt(f, "max_completion_tokens", 1, maxInt); e != nil {
		return e
	}
	if e := checkBool(f, "logprobs"); e != nil {
		return e
	}
	if e := checkInt(f, "top_logprobs", 0, 20); e != nil {
		return e
	}
	if e := checkBool(f, "parallel_tool_calls"); e != nil {
		return e
	}
	rf := f.get("response_format")
	if present(rf) {
		if !rf.IsObject() {
			return invalidType("response_format", "an object")
		}
		switch t := rf.Get("type").Str; t {
		case "text", "json_object":
		case "json_schema":
			if !rf.Get("json_schema").IsObject() {
				return missing("response_format.json_schema")
			}
		default:
			return invalidValue("response_format.type", fmt.Sprintf("expected text, json_object or json_schema, got %q.", t))
		}
	}
	return nil
}

var roles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// partTypes lists the content part types each role may send.
var partTypes = map[string]map[string]bool{
	"system":    {"text": true},
	"developer": {"text": true},
	"user":      {"text": true, "image_url": true, "input_audio": true, "file": true},
	"assistant": {"text": true, "refusal": true},
	"tool":      {"text": true},
}

func checkMessages(msgs gjson.Result) *Error {
	switch {
	case !present(msgs):
		return missing("messages")
	case !msgs.IsArray():
		return invalidType("messages", "an array of messages")
	}
	n := 0
	var e *Error
	msgs.ForEach(func(_, m gjson.Result) bool {
		if !plainMessage(m) {
			e = checkMessage(fmt.Sprintf("messages[%d]", n), m)
		}
		n++
		return e == nil
	})
	if n == 0 {
		return invalidValue("messages", "expected at least 1 message, got an empty array.")
	}
	return e
}

// plainMessage reports a message of the common shape, which checkMessage
// would pass without building the paths its errors name: a system,
// developer, user or assistant message whose content is a string, with
// no calls and no name that is not a string.
func plainMessage(m gjson.Result) bool {
	if !m.IsObject() {
		return false
	}
	// Raw texts: "role" is plain only as one of four words without escapes.
	var role, content, name string
	calls := false
	read := jsonscan.EachMember(m.Raw, func(k, v string) bool {
		switch k {
		case "role":
			role = v
		case "content":
			content = v
		case "name":
			name = v
		case "tool_calls", "function_call":
			calls = true
		}
		return true
	})
	switch role {
	case `"system"`, `"developer"`, `"user"`, `"assistant"`:
	default:
		return false
	}
	return read && !calls && strings.HasPrefix(content, `"`) &&
		(name == "" || name == "null" || strings.HasPrefix(name, `"`))
}

// checkMessage checks the message at path p.
func checkMessage(p string, m gjson.Result) *Error {
	if !m.IsObject() {
		return invalidType(p, "an object with role and content")
	}
	role := m.Get("role")
	if !present(role) {
		return missing(p + ".role")
	}
	if role.Type != gjson.String || !roles[role.Str] {
		return invalidValue(p+".role", fmt.Sprintf("expected one of system, developer, user, assistant, tool, function, got %s.", role.Raw))
	}
	if name := m.Get("name"); present(name) && name.Type != gjson.String {
		return invalidType(p+".name", "a string")
	}
	content := m.Get("content")
	switch role.Str {
	case "assistant":
		if !present(content) {
			if !m.Get("tool_calls").Exists() && !m.Get("function_call").Exists() {
				return missing(p + ".content")
			}
			return checkAssistantCalls(p, m)
		}
		if e := checkAssistantCalls(p, m); e != nil {
			return e
		}
	case "function":
		if name := m.Get("name"); !present(name) {
			return missing(p + ".name")
		}
		if present(content) && content.Type != gjson.String {
			return invalidType(p+".content", "a string or null")
		}
		if !content.Exists() {
			return missing(p + ".content")
		}
		return nil
	case "tool":
		if id := m.Get("tool_call_id"); !present(id) {
			return missing(p + ".tool_call_id")
		} else if id.Type != gjson.String {
			return invalidType(p+".tool_call_id", "a string")
		}
	}
	return checkContent(p+".content", role.Str, content)
}

func checkContent(p, role string, content gjson.Result) *Error {
	if !present(content) {
		return missing(p)
	}
	if content.Type == gjson.String {
		return nil
	}
	if !content.IsArray() {
		return invalidType(p, "a string or an array of content parts")
	}
	for j, part := range content.Array() {
		pp := fmt.Sprintf("%s[%d]", p, j)
		if !part.IsObject() {
			return invalidType(pp, "a content part object")
		}
		t := part.Get("type").Str
		if !partTypes[role][t] {
			return invalidValue(pp+".type", fmt.Sprintf("content part type %q is not allowed in a %s message.", t, role))
		}
		switch t {
		case "text":
			if part.Get("text").Type != gjson.String {
				return invalidType(pp+".text", "a string")
			}
		case "image_url":
			if part.Get("image_url.url").Type != gjson.String {
				return missing(pp + ".image_url.url")
			}
		case "refusal":
			if part.Get("refusal").Type != gjson.String {
				return invalidType(pp+".refusal", "a string")
			}
		case "input_audio":
			if !part.Get("input_audio").IsObject() {
				return missing(pp + ".input_audio")
			}
		case "file":
			if !part.Get("file").IsObject() {
				return missing(pp + ".file")
			}
		}
	}
	return nil
}

func checkAssistantCalls(p string, m gjson.Result) *Error {
	if tc := m.Get("tool_calls"); present(tc) {
		if !tc.IsArray() {
			return invalidType(p+".tool_calls", "an array")
		}
		for j, c := range tc.Array() {
			cp := fmt.Sprintf("%s.tool_calls[%d]", p, j)
			if c.Get("id").Type != gjson.String {
				return missing(cp + ".id")
			}
			if c.Get("function.name").Type != gjson.String {
				return missing(cp + ".function.name")
			}
			if c.Get("function.arguments").Type != gjson.String {
				return invalidType(cp+".function.arguments", "a string of JSON")
			}
		}
	}
	if fc := m.Get("function_call"); present(fc) {
		if fc.Get("name").Type != gjson.String {
			return missing(p + ".function_call.name")
		}
		if fc.Get("arguments").Type != gjson.String {
			return invalidType(p+".function_call.arguments", "a string of JSON")
		}
	}
	return nil
}

// checkFunctions validates the legacy functions and function_call.
func checkFunctions(f *fields) *Error {
	fns := f.get("functions")
	names := map[string]bool{}
	if present(fns) {
		if !fns.IsArray() {
			return invalidType("functions", "an array of function definitions")
		}
		arr := fns.Array()
		if len(arr) == 0 || len(arr) > 128 {
			return invalidValue("functions", fmt.Sprintf("expected 1 to 128 functions, got %d.", len(arr)))
		}
		for i, f := range arr {
			if e := checkFunctionDef(fmt.Sprintf("functions[%d]", i), f); e != nil {
				return e
			}
			names[f.Get("name").Str] = true
		}
		if present(f.get("tools")) {
			return invalidValue("functions", "use either functions or tools, not both.")
		}
	}
	fc := f.get("function_call")
	if !present(fc) {
		return nil
	}
	switch {
	case fc.Type == gjson.String && (fc.Str == "none" || fc.Str == "auto"):
		return nil
	case fc.IsObject() && fc.Get("name").Type == gjson.String:
		if !names[fc.Get("name").Str] {
			return invalidValue("function_call", fmt.Sprintf("function %q is not among the functions.", fc.Get("name").Str))
		}
		return nil
	}
	return invalidValue("function_call", `expected "none", "auto" or {"name": "<one of the functions>"}.`)
}

func checkFunctionDef(p string, f gjson.Result) *Error {
	if !f.IsObject() {
		return invalidType(p, "a function definition object")
	}
	name := f.Get("name")
	if !present(name) {
		return missing(p + ".name")
	}
	if name.Type != gjson.String || !functionName.MatchString(name.Str) {
		return invalidValue(p+".name", "expected 1 to 64 letters, digits, underscores or dashes.")
	}
	if d := f.Get("description"); present(d) && d.Type != gjson.String {
		return invalidType(p+".description", "a string")
	}
	if params := f.Get("parameters"); present(params) && !params.IsObject() {
		return invalidType(p+".parameters", "a JSON Schema object")
	}
	return nil
}

// checkTools validates tools and tool_choice.
func checkTools(f *fields) *Error {
	tools := f.get("tools")
	names := map[string]bool{}
	if present(tools) {
		if !tools.IsArray() {
			return invalidType("tools", "an array of tools")
		}
		for i, t := range tools.Array() {
			p := fmt.Sprintf("tools[%d]", i)
			switch t.Get("type").Str {
			case "function":
				if e := checkFunctionDef(p+".function", t.Get("function")); e != nil {
					return e
				}
				names[t.Get("function.name").Str] = true
			case "custom":
				names[t.Get("custom.name").Str] = true
			default:
				return invalidValue(p+".type", fmt.Sprintf("expected function or custom, got %s.", t.Get("type").Raw))
			}
		}
	}
	tc := f.get("tool_choice")
	if !present(tc) {
		return nil
	}
	if tc.Type == gjson.String {
		switch tc.Str {
		case "none", "auto", "required":
			return nil
		}
		return invalidValue("tool_choice", fmt.Sprintf(`expected "none", "auto", "required" or an object, got %q.`, tc.Str))
	}
	if !tc.IsObject() {
		return invalidType("tool_choice", "a string or an object")
	}
	switch tc.Get("type").Str {
	case "function":
		if n := tc.Get("function.name").Str; !names[n] {
			return invalidValue("tool_choice", fmt.Sprintf("tool %q is not among the tools.", n))
		}
	case "custom", "allowed_tools":
	default:
		return invalidValue("tool_choice.type", "expected function, custom or allowed_tools.")
	}
	return nil
}
