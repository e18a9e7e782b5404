package mock

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonschema"
)

// call is a function call the mock decided to make.
type call struct{ name, args string }

// pickCall returns the function the mock calls: one is called only when
// the request offers functions, does not forbid calls, and its last
// message is the user's, so that a tool result is answered with text and
// an agent loop ends. The arguments satisfy the function's parameters
// schema (see example).
func pickCall(body []byte) (c call, legacy, ok bool) {
	tools, fns := gjson.GetBytes(body, "tools"), gjson.GetBytes(body, "functions")
	choice := gjson.GetBytes(body, "tool_choice")
	if fns.Exists() {
		legacy, choice = true, gjson.GetBytes(body, "function_call")
	}
	if choice.Str == "none" || lastRole(body) != "user" {
		return call{}, legacy, false
	}
	var defs []gjson.Result
	if legacy {
		defs = fns.Array()
	} else {
		for _, t := range tools.Array() {
			defs = append(defs, t.Get("function"))
		}
	}
	if len(defs) == 0 {
		return call{}, legacy, false
	}
	def := defs[0]
	forced := choice.Get("name").Str
	if forced == "" {
		forced = choice.Get("function.name").Str
	}
	for _, d := range defs {
		if forced != "" && d.Get("name").Str == forced {
			def = d
		}
	}
	params := def.Get("parameters")
	args, isObject := jsonschema.Example(params).(map[string]any)
	if !isObject {
		args = map[string]any{}
	}
	b, _ := json.Marshal(args) // values decoded from JSON always marshal
	return call{name: def.Get("name").Str, args: string(b)}, legacy, true
}

// lastRole is the role of the request's last message.
func lastRole(body []byte) string {
	msgs := gjson.GetBytes(body, "messages").Array()
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1].Get("role").Str
}
