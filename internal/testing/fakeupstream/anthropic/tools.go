package fakeanthropic

import (
	"slices"

	"github.com/tidwall/gjson"
)

// tool is a tool the fake may call.
type tool struct {
	name   string
	schema gjson.Result // input_schema
}

// choice is a request's tool_choice.
type choice struct {
	typ        string // auto (default), any, tool, none
	name       string // for tool
	noParallel bool   // disable_parallel_tool_use
}

var (
	toolFields   = keys("name", "description", "input_schema", "type", "cache_control")
	choiceFields = keys("type", "name", "disable_parallel_tool_use")
)

// checkToolFields checks tools and tool_choice, and that a conversation
// with tool blocks defines tools.
func (q *request) checkToolFields(root gjson.Result) error {
	tools := root.Get("tools")
	if tools.Exists() && !tools.IsArray() {
		return invalid("tools: Input should be a valid list")
	}
	for i, t := range tools.Array() {
		if serverTool(t) {
			continue // Anthropic runs it; the fake never calls it
		}
		def, err := checkTool(at("tools", i), t)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(q.tools, func(o tool) bool { return o.name == def.name }) {
			return invalid("tools: Tool names must be unique.")
		}
		q.tools = append(q.tools, def)
	}
	if q.toolBlocks && len(q.tools) == 0 {
		return invalid("Requests which include `tool_use` or `tool_result` blocks must define tools.")
	}
	q.choice = choice{typ: "auto"}
	if tc := root.Get("tool_choice"); tc.Exists() {
		if len(q.tools) == 0 {
			return invalid("tool_choice: tool_choice may only be specified while providing tools.")
		}
		return q.checkChoice(tc)
	}
	return nil
}

// serverTools are the server tools the fake accepts, by type, with the
// name each must have.
var serverTools = map[string]string{"web_search_20250305": "web_search", "web_fetch_20250910": "web_fetch"}

// serverTool reports whether t is one of Anthropic's server tools.
func serverTool(t gjson.Result) bool {
	name, ok := serverTools[t.Get("type").Str]
	return ok && t.Get("name").Str == name
}

func checkTool(p string, t gjson.Result) (tool, error) {
	if !t.IsObject() {
		return tool{}, invalid("%s: Input should be a valid dictionary", p)
	}
	if err := checkKeys(t, p, toolFields); err != nil {
		return tool{}, err
	}
	if typ := t.Get("type"); typ.Exists() && typ.Str != "custom" {
		return tool{}, invalid("%s.type: Input should be 'custom'", p)
	}
	name := t.Get("name")
	if name.Type != gjson.String || !validID(name.Str, 64) {
		return tool{}, invalid("%s.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", p)
	}
	if d := t.Get("description"); d.Exists() && d.Type != gjson.String {
		return tool{}, invalid("%s.description: Input should be a valid string", p)
	}
	schema := t.Get("input_schema")
	switch {
	case !schema.Exists():
		return tool{}, invalid("%s.input_schema: Field required", p)
	case !schema.IsObject():
		return tool{}, invalid("%s.input_schema: Input should be a valid dictionary", p)
	case schema.Get("type").Str != "object":
		return tool{}, invalid("%s.input_schema.type: Input should be 'object'", p)
	}
	return tool{name: name.Str, schema: schema}, nil
}

func (q *request) checkChoice(tc gjson.Result) error {
	if !tc.IsObject() {
		return invalid("tool_choice: Input should be a valid dictionary")
	}
	if err := checkKeys(tc, "tool_choice", choiceFields); err != nil {
		return err
	}
	c := choice{typ: tc.Get("type").Str, name: tc.Get("name").Str}
	switch c.typ {
	case "auto", "any", "none":
		if tc.Get("name").Exists() {
			return invalid("tool_choice.%s.name: Extra inputs are not permitted", c.typ)
		}
	case "tool":
		if !slices.ContainsFunc(q.tools, func(t tool) bool { return t.name == c.name }) {
			return invalid("tool_choice.tool.name: Tool %q not found in the tools", c.name)
		}
	default:
		return invalid("tool_choice.type: Input tag %q found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", c.typ)
	}
	if dp := tc.Get("disable_parallel_tool_use"); dp.Exists() {
		if !dp.IsBool() || c.typ == "none" {
			return invalid("tool_choice.%s.disable_parallel_tool_use: Extra inputs are not permitted", c.typ)
		}
		c.noParallel = dp.Bool()
	}
	q.choice = c
	return nil
}

// pickCalls decides what a valid request calls, as the OpenAI fake does:
// the named tool; else the first tool (the first two when parallel calls
// are allowed) when tool_choice is any, or auto and the last user message
// holds no tool results (so that client tool loops end).
func (q *request) pickCalls() []tool {
	switch c := q.choice; {
	case len(q.tools) == 0 || c.typ == "none":
		return nil
	case c.typ == "tool":
		i := slices.IndexFunc(q.tools, func(t tool) bool { return t.name == c.name })
		return q.tools[i : i+1]
	case c.typ == "auto" && q.answered:
		return nil
	case len(q.tools) >= 2 && !c.noParallel:
		return q.tools[:2]
	}
	return q.tools[:1]
}

// sampleArgs builds a tool input for a schema: each required property set
// to its first enum value, "Paris" for strings, 1 for numbers and null
// otherwise.
func sampleArgs(schema gjson.Result) string {
	props := schema.Get("properties")
	b := []byte{'{'}
	for i, name := range schema.Get("required").Array() {
		if i > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, name.Str)
		b = append(b, ':')
		b = appendSample(b, member(props, name.Str))
	}
	return string(append(b, '}'))
}

func appendSample(b []byte, prop gjson.Result) []byte {
	if enum := prop.Get("enum").Array(); len(enum) > 0 {
		return append(b, enum[0].Raw...)
	}
	switch prop.Get("type").Str {
	case "string":
		return append(b, `"Paris"`...)
	case "number", "integer":
		return append(b, '1')
	}
	return append(b, "null"...)
}

// member returns obj's member named key, matched literally (no gjson path
// syntax).
func member(obj gjson.Result, key string) gjson.Result {
	var out gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out = v
			return false
		}
		return true
	})
	return out
}
