package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// emptySchema is input_schema for a function without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// setTools translates tools (or the legacy functions) and the tool choice.
// A history with tool calls but no tools on offer gets placeholder
// definitions of the tools it used and tool_choice none: Anthropic
// refuses tool_use and tool_result blocks in a request without tools.
func setTools(out *messagesRequest, root gjson.Result, legacy bool, history []string) error {
	defs, err := toolDefs(root, legacy)
	switch {
	case err != nil:
		return err
	case len(defs) > 0:
		out.Tools, out.ToolChoice, err = chooseTool(root, legacy, defs)
		return err
	case len(history) > 0:
		for _, name := range history {
			out.Tools = append(out.Tools, toolDef{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		out.ToolChoice = &toolChoice{Type: "none"}
	}
	return nil
}

// toolDefs reads the function tools (or functions).
func toolDefs(root gjson.Result, legacy bool) ([]toolDef, error) {
	list, prefix := root.Get("tools"), "tools"
	if legacy {
		list, prefix = root.Get("functions"), "functions"
	}
	if !present(list) {
		return nil, nil
	}
	if !list.IsArray() {
		return nil, refuse(prefix, "Expected an array of tools.")
	}
	var defs []toolDef
	for i, t := range list.Array() {
		p, fn := fmt.Sprintf("%s[%d]", prefix, i), t
		if !legacy {
			switch t.Get("type").Str {
			case "function":
				p, fn = p+".function", t.Get("function")
			case "custom":
				return nil, unsupported(p+".type", "Custom tools are not supported for Anthropic models.")
			default:
				return nil, refuse(p+".type", "Expected a function tool.")
			}
		}
		d, err := toolDefOf(p, fn)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(defs, func(o toolDef) bool { return o.Name == d.Name }) {
			return nil, refuse(p+".name", "Tool names must be unique; %q is repeated.", d.Name)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

func toolDefOf(p string, fn gjson.Result) (toolDef, error) {
	name := fn.Get("name")
	if name.Type != gjson.String || !validName(name.Str) {
		return toolDef{}, refuse(p+".name", "Expected 1 to 64 letters, digits, underscores or dashes.")
	}
	schema, err := inputSchema(p+".parameters", fn.Get("parameters"))
	if err != nil {
		return toolDef{}, err
	}
	d := toolDef{Name: name.Str, InputSchema: schema}
	if desc := fn.Get("description"); desc.Type == gjson.String {
		d.Description = desc.Str
	}
	return d, nil
}

// inputSchema is the parameters schema, {"type":"object","properties":{}}
// when absent; Anthropic requires an object schema with its type.
func inputSchema(p string, params gjson.Result) (json.RawMessage, error) {
	if !present(params) {
		return json.RawMessage(emptySchema), nil
	}
	if !params.IsObject() {
		return nil, refuse(p, "Expected a JSON Schema object.")
	}
	switch t := params.Get("type"); {
	case !t.Exists():
		b, err := sjson.SetBytes([]byte(params.Raw), "type", "object")
		if err != nil {
			return nil, refuse(p, "Expected a JSON Schema object.")
		}
		return b, nil
	case t.Type != gjson.String || t.Str != "object":
		return nil, refuse(p+".type", `The parameters schema of a function must have "type": "object".`)
	}
	return json.RawMessage(params.Raw), nil
}

// chooseTool maps tool_choice (or function_call) and parallel_tool_calls
// for a request with tools.
// Legacy functions always get disable_parallel_tool_use: an answer holds
// one function_call. It returns the tools to send: allowed_tools narrows
// them.
func chooseTool(root gjson.Result, legacy bool, defs []toolDef) ([]toolDef, *toolChoice, error) {
	v, p := root.Get("tool_choice"), "tool_choice"
	if legacy {
		v, p = root.Get("function_call"), "function_call"
	}
	c := &toolChoice{Type: "auto"}
	var err error
	switch {
	case !present(v) || v.Type == gjson.String && v.Str == "auto":
	case v.Type == gjson.String && v.Str == "none":
		return defs, &toolChoice{Type: "none"}, nil
	case v.Type == gjson.String && v.Str == "required":
		c.Type = "any"
	case v.IsObject():
		if defs, c, err = namedChoice(p, v, legacy, defs); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, refuse(p, `Expected "none", "auto", "required" or an object.`)
	}
	c.DisableParallelToolUse = legacy || root.Get("parallel_tool_calls").Type == gjson.False
	return defs, c, nil
}

// namedChoice maps an object tool choice: one named function, or
// allowed_tools.
func namedChoice(p string, v gjson.Result, legacy bool, defs []toolDef) ([]toolDef, *toolChoice, error) {
	name := v.Get("function.name").Str
	switch {
	case legacy:
		name = v.Get("name").Str
	case v.Get("type").Str == "allowed_tools":
		return allowedTools(p, v.Get("allowed_tools"), defs)
	case v.Get("type").Str == "custom":
		return nil, nil, unsupported(p, "Custom tools are not supported for Anthropic models.")
	case v.Get("type").Str != "function":
		return nil, nil, refuse(p+".type", "Expected function or allowed_tools.")
	}
	if !slices.ContainsFunc(defs, func(d toolDef) bool { return d.Name == name }) {
		return nil, nil, refuse(p, "Tool %q is not among the tools.", name)
	}
	return defs, &toolChoice{Type: "tool", Name: name}, nil
}

// allowedTools keeps the listed function tools; mode required becomes any.
func allowedTools(p string, at gjson.Result, defs []toolDef) ([]toolDef, *toolChoice, error) {
	var kept []toolDef
	for _, d := range defs {
		if slices.ContainsFunc(at.Get("tools").Array(), func(t gjson.Result) bool { return t.Get("function.name").Str == d.Name }) {
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		return nil, nil, refuse(p+".allowed_tools.tools", "None of the allowed tools is among the tools.")
	}
	c := &toolChoice{Type: "auto"}
	if at.Get("mode").Str == "required" {
		c.Type = "any"
	}
	return kept, c, nil
}
