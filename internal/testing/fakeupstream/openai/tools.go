package fakeopenai

import (
	"slices"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// tool is a function the fake may call.
type tool struct {
	name   string
	params gjson.Result // JSON Schema of the arguments
}

// pickCalls decides what a validated request calls: the forced tool or
// function, else the first one (the first two with parallel tool calls).
// A request whose last message is a tool result gets a text answer unless
// a call is forced, so that client tool loops end. Custom tools are never
// called.
func pickCalls(root gjson.Result, lastRole string) ([]tool, bool) {
	answered := lastRole == "tool" || lastRole == "function"
	if fns := root.Get("functions"); present(fns) {
		return pickFunction(fns.Array(), root.Get("function_call"), answered), true
	}
	var defs []tool
	for _, t := range root.Get("tools").Array() {
		if t.Get("type").Str == "function" {
			defs = append(defs, tool{name: t.Get("function.name").Str, params: t.Get("function.parameters")})
		}
	}
	choice := root.Get("tool_choice")
	required := choice.Str == "required"
	switch choice.Get("type").Str {
	case "function":
		return only(defs, choice.Get("function.name").Str), false
	case "custom":
		return nil, false
	case "allowed_tools":
		defs = allowed(defs, choice.Get("allowed_tools.tools").Array())
		required = choice.Get("allowed_tools.mode").Str == "required"
	}
	if len(defs) == 0 || choice.Str == "none" || answered && !required {
		return nil, false
	}
	if len(defs) >= 2 && root.Get("parallel_tool_calls").Type != gjson.False {
		return defs[:2], false
	}
	return defs[:1], false
}

func pickFunction(fns []gjson.Result, choice gjson.Result, answered bool) []tool {
	defs := make([]tool, len(fns))
	for i, f := range fns {
		defs[i] = tool{name: f.Get("name").Str, params: f.Get("parameters")}
	}
	switch {
	case choice.IsObject():
		return only(defs, choice.Get("name").Str)
	case choice.Str == "none" || answered:
		return nil
	}
	return defs[:1]
}

func only(defs []tool, name string) []tool {
	i := slices.IndexFunc(defs, func(t tool) bool { return t.name == name })
	if i < 0 {
		return nil
	}
	return defs[i : i+1]
}

// allowed keeps the function tools named in allowed_tools.tools, in order.
func allowed(defs []tool, list []gjson.Result) []tool {
	var out []tool
	for _, t := range defs {
		if slices.ContainsFunc(list, func(a gjson.Result) bool { return a.Get("function.name").Str == t.name }) {
			out = append(out, t)
		}
	}
	return out
}

// sampleArgs builds arguments for a schema: a JSON object with each
// required property set to its first enum value, "Paris" for strings, 1
// for numbers and null otherwise.
func sampleArgs(schema gjson.Result) string {
	props := schema.Get("properties")
	b := []byte{'{'}
	for i, name := range schema.Get("required").Array() {
		if i > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, name.Str)
		b = append(b, ':')
		b = appendSample(b, field(props, name.Str))
	}
	return string(append(b, '}'))
}

func appendSample(b []byte, prop gjson.Result) []byte {
	if enum := prop.Get("enum").Array(); len(enum) > 0 {
		return append(b, enum[0].Raw...)
	}
	t := prop.Get("type")
	for _, alt := range t.Array() {
		if alt.Str != "null" {
			t = alt
			break
		}
	}
	switch t.Str {
	case "string":
		return append(b, `"Paris"`...)
	case "number", "integer":
		return append(b, '1')
	}
	return append(b, "null"...)
}

// argPieces splits arguments into at least two fragments of about 8 bytes,
// never inside a UTF-8 sequence, the way OpenAI streams them.
func argPieces(args string) []string {
	size := min(8, max(1, len(args)/2))
	var out []string
	for len(args) > 0 {
		end := min(size, len(args))
		for end < len(args) && !utf8.RuneStart(args[end]) {
			end++
		}
		out = append(out, args[:end])
		args = args[end:]
	}
	return out
}
