package responses

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"

	"github.com/tidwall/gjson"
)

// functionTool is a function tool, flat as the Responses API writes it;
// its JSON is the echo in the response, strict filled in.
type functionTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// builtinTools are OpenAI's hosted and client-run tool types.
var builtinTools = []string{"web_search", "web_search_2025_08_26", "web_search_preview",
	"web_search_preview_2025_03_11", "file_search", "code_interpreter", "computer_use_preview",
	"computer", "image_generation", "mcp", "local_shell", "shell", "apply_patch",
	"tool_search", "namespace", "programmatic_tool_calling"}

// toolName is what OpenAI accepts as a function or schema name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// parseTools reads tools: function tools only.
func (r *Request) parseTools(root gjson.Result) error {
	v := root.Get("tools")
	if !present(v) {
		return nil
	}
	if !v.IsArray() {
		return invalidType("tools", "an array")
	}
	for i, x := range v.Array() {
		t, err := r.parseTool(x, indexed("tools", i))
		var fe *FieldError
		if errors.As(err, &fe) && fe.NativeOnly {
			r.noteNativeOnly(fe)
			continue
		}
		if err != nil {
			return err
		}
		r.tools = append(r.tools, t)
	}
	return nil
}

func (r *Request) parseTool(x gjson.Result, p string) (functionTool, error) {
	if !x.IsObject() {
		return functionTool{}, invalidType(p, "an object")
	}
	typ, err := reqString(x.Get("type"), p+".type")
	switch {
	case err != nil:
		return functionTool{}, err
	case typ == "custom":
		return functionTool{}, nativeOnly(p+".type", "Tool type 'custom' (freeform tools) is not supported by Switchyard for model '%s'. Only 'function' tools are supported.", r.Model)
	case slices.Contains(builtinTools, typ):
		return functionTool{}, nativeOnly(p+".type", "Tool type '%s' is a built-in tool Switchyard cannot run for model '%s'. Only 'function' tools are supported.", typ, r.Model)
	case typ != "function":
		return functionTool{}, invalidValue(p+".type", "unknown tool type '%s'.", typ)
	}
	t := functionTool{Type: typ, Strict: true, Parameters: json.RawMessage("null")}
	if t.Name, err = reqString(x.Get("name"), p+".name"); err != nil {
		return t, err
	}
	if !toolName.MatchString(t.Name) {
		return t, invalidValue(p+".name", "expected 1 to 64 letters, digits, underscores or dashes.")
	}
	if d := x.Get("description"); present(d) {
		if d.Type != gjson.String {
			return t, invalidType(p+".description", "a string")
		}
		t.Description = &d.Str
	}
	if params := x.Get("parameters"); present(params) {
		if !params.IsObject() {
			return t, invalidType(p+".parameters", "a JSON Schema object")
		}
		t.Parameters = compact(params)
	}
	strict, err := optBool(x.Get("strict"), p+".strict")
	if strict != nil {
		t.Strict = *strict
	}
	return t, err
}

// parseToolChoice checks tool_choice: "none", "auto", "required", a
// function by name, or allowed_tools over functions.
func (r *Request) parseToolChoice(root gjson.Result) error {
	v := root.Get("tool_choice")
	if !present(v) {
		return nil
	}
	r.toolChoice = compact(v)
	if v.Type == gjson.String {
		_, err := optEnum(v, "tool_choice", "none", "auto", "required")
		return err
	}
	if !v.IsObject() {
		return invalidType("tool_choice", "a string or an object")
	}
	typ, err := reqString(v.Get("type"), "tool_choice.type")
	switch {
	case err != nil:
		return err
	case typ == "function":
		_, err = reqString(v.Get("name"), "tool_choice.name")
		return err
	case typ == "allowed_tools":
		return checkAllowed(v)
	case typ == "custom" || typ == "mcp" || slices.Contains(builtinTools, typ):
		r.noteNativeOnly(nativeOnly("tool_choice.type", "tool_choice of type '%s' names a tool Switchyard cannot run. Only 'function' tools are supported.", typ))
		return nil
	}
	return invalidValue("tool_choice.type", "unknown tool choice type '%s'.", typ)
}

func checkAllowed(v gjson.Result) error {
	if _, err := optEnum(v.Get("mode"), "tool_choice.mode", "auto", "required"); err != nil {
		return err
	}
	tools := v.Get("tools")
	if !tools.IsArray() {
		return invalidType("tool_choice.tools", "an array")
	}
	for i, t := range tools.Array() {
		p := indexed("tool_choice.tools", i)
		typ, err := reqString(t.Get("type"), p+".type")
		if err != nil {
			return err
		}
		if typ != "function" {
			return unsupported(p+".type", "Only 'function' tools are supported, not '%s'.", typ)
		}
		if _, err := reqString(t.Get("name"), p+".name"); err != nil {
			return err
		}
	}
	return nil
}

// parseText checks text: format (text, json_object, or json_schema with
// name and schema) and verbosity.
func (r *Request) parseText(root gjson.Result) error {
	v := root.Get("text")
	if !present(v) {
		return nil
	}
	if !v.IsObject() {
		return invalidType("text", "an object")
	}
	var err error
	if r.verbosity, err = optEnum(v.Get("verbosity"), "text.verbosity", "low", "medium", "high"); err != nil {
		return err
	}
	f := v.Get("format")
	if !present(f) {
		return nil
	}
	if !f.IsObject() {
		return invalidType("text.format", "an object")
	}
	typ, err := reqString(f.Get("type"), "text.format.type")
	switch {
	case err != nil:
		return err
	case typ == "json_schema":
		err = checkSchemaFormat(f)
	case typ != "text" && typ != "json_object":
		err = invalidValue("text.format.type", "'%s' is not one of 'text', 'json_object', 'json_schema'.", typ)
	}
	r.format = compact(f)
	return err
}

func checkSchemaFormat(f gjson.Result) error {
	name, err := reqString(f.Get("name"), "text.format.name")
	if err != nil {
		return err
	}
	if !toolName.MatchString(name) {
		return invalidValue("text.format.name", "expected 1 to 64 letters, digits, underscores or dashes.")
	}
	s := f.Get("schema")
	if !present(s) {
		return missing("text.format.schema")
	}
	if !s.IsObject() {
		return invalidType("text.format.schema", "a JSON Schema object")
	}
	if _, err := optString(f.Get("description"), "text.format.description"); err != nil {
		return err
	}
	_, err = optBool(f.Get("strict"), "text.format.strict")
	return err
}
