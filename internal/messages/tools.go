package messages

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// parseTools translates client tools into chat function tools. Server
// tools (typed with a dated name such as web_search_20250305) run at
// Anthropic only and are refused.
func parseTools(r *Request, root gjson.Result) error {
	v := root.Get("tools")
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return errorf("tools", "Input should be a valid list")
	}
	for i, t := range v.Array() {
		tool, err := clientTool(t, path("tools", i))
		if err != nil {
			return err
		}
		r.chat.Tools = append(r.chat.Tools, tool)
	}
	return nil
}

func clientTool(t gjson.Result, p string) (chatTool, error) {
	if !t.IsObject() {
		return chatTool{}, errorf(p, "Input should be a valid dictionary")
	}
	if typ := t.Get("type"); typ.Exists() && typ.Type != gjson.Null && typ.Str != "custom" {
		return chatTool{}, nativeOnlyf(path(p, "type"), "tool type '%s' is one of Anthropic's server tools, which this model's upstream does not offer: only client tools (name, description, input_schema) can be used", typ.String())
	}
	name, err := str(t.Get("name"), path(p, "name"), true)
	if err == nil && name == "" {
		err = errorf(path(p, "name"), "String should have at least 1 character")
	}
	if err != nil {
		return chatTool{}, err
	}
	desc, err := str(t.Get("description"), path(p, "description"), false)
	if err != nil {
		return chatTool{}, err
	}
	schema := t.Get("input_schema")
	if !schema.IsObject() {
		return chatTool{}, errorf(path(p, "input_schema"), "Field required")
	}
	decl := functionDecl{Name: name, Description: desc, Parameters: json.RawMessage(schema.Raw)}
	if s := t.Get("strict"); s.Exists() && s.Type != gjson.Null {
		if !isBool(s) {
			return chatTool{}, errorf(path(p, "strict"), "Input should be a valid boolean")
		}
		strict := s.Bool()
		decl.Strict = &strict
	}
	return chatTool{Type: "function", Function: decl}, nil
}

// parseToolChoice translates tool_choice: auto → "auto", any →
// "required", tool → the named function, none → "none";
// disable_parallel_tool_use → parallel_tool_calls: false.
func parseToolChoice(r *Request, root gjson.Result) error {
	v := root.Get("tool_choice")
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return errorf("tool_choice", "Input should be a valid dictionary")
	}
	switch t := v.Get("type").Str; t {
	case "auto":
		r.chat.ToolChoice = "auto"
	case "any":
		r.chat.ToolChoice = "required"
	case "none":
		r.chat.ToolChoice = "none"
		return nil
	case "tool":
		name, err := str(v.Get("name"), "tool_choice.name", true)
		if err != nil {
			return err
		}
		var c namedToolChoice
		c.Type, c.Function.Name = "function", name
		r.chat.ToolChoice = c
	default:
		return errorf("tool_choice.type", "Input should be 'auto', 'any', 'tool' or 'none'")
	}
	d := v.Get("disable_parallel_tool_use")
	switch {
	case d.Exists() && d.Type != gjson.Null && !isBool(d):
		return errorf("tool_choice.disable_parallel_tool_use", "Input should be a valid boolean")
	case d.Bool() && len(r.chat.Tools) > 0:
		no := false
		r.chat.ParallelToolCalls = &no
	}
	return nil
}

// efforts are output_config.effort's values, which chat's
// reasoning_effort shares.
var efforts = []string{"low", "medium", "high", "xhigh", "max"}

// parseThinking maps thinking and output_config.effort to chat's
// reasoning_effort (docs/providers.md): a budget below 2048 is low, below
// 8192 medium, else high; adaptive takes the effort (default medium);
// disabled sends none; an effort without thinking is sent as is.
func parseThinking(r *Request, root gjson.Result) error {
	effort := root.Get("output_config.effort")
	if err := oneOf(effort, "output_config.effort", efforts...); err != nil {
		return err
	}
	v := root.Get("thinking")
	if !v.Exists() || v.Type == gjson.Null {
		r.chat.ReasoningEffort = effort.Str
		return nil
	}
	if !v.IsObject() {
		return errorf("thinking", "Input should be a valid dictionary")
	}
	switch t := v.Get("type").Str; t {
	case "disabled":
	case "adaptive":
		r.chat.ReasoningEffort = effort.Str
		if effort.Str == "" {
			r.chat.ReasoningEffort = "medium"
		}
	case "enabled":
		budget, err := thinkingBudget(v, r.MaxTokens)
		if err != nil {
			return err
		}
		r.chat.ReasoningEffort = budgetEffort(budget)
	default:
		return errorf("thinking.type", "Input should be 'enabled', 'adaptive' or 'disabled'")
	}
	return nil
}

// thinkingBudget checks an enabled thinking's budget_tokens: at least
// 1024 and, for a Messages request, below max_tokens — except on
// Anthropic itself, where the interleaved-thinking beta lifts that rule
// for tool use (Claude Code sends it), so a larger budget is left for the
// native upstream to judge.
func thinkingBudget(v gjson.Result, maxTokens int) (int, error) {
	budget, ok, err := integer(v.Get("budget_tokens"), "thinking.budget_tokens", 1024)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, errorf("thinking.budget_tokens", "Field required")
	case maxTokens > 0 && budget >= maxTokens:
		return 0, nativeOnlyf("max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`")
	}
	return budget, nil
}

func budgetEffort(budget int) string {
	switch {
	case budget < 2048:
		return "low"
	case budget < 8192:
		return "medium"
	}
	return "high"
}

// parseOutput translates output_config.format (or the beta's
// output_format) into a strict json_schema response_format.
func parseOutput(r *Request, root gjson.Result) error {
	if c := root.Get("output_config"); c.Exists() && c.Type != gjson.Null && !c.IsObject() {
		return errorf("output_config", "Input should be a valid dictionary")
	}
	f, p := root.Get("output_config.format"), "output_config.format"
	if !f.Exists() || f.Type == gjson.Null {
		f, p = root.Get("output_format"), "output_format"
	}
	if !f.Exists() || f.Type == gjson.Null {
		return nil
	}
	if !f.IsObject() {
		return errorf(p, "Input should be a valid dictionary")
	}
	if t := f.Get("type"); t.Str != "json_schema" {
		return errorf(path(p, "type"), "Input should be 'json_schema'")
	}
	schema := f.Get("schema")
	if !schema.IsObject() {
		return errorf(path(p, "schema"), "Field required")
	}
	r.chat.ResponseFormat = &responseFormat{Type: "json_schema",
		JSONSchema: jsonSchema{Name: "output", Schema: json.RawMessage(schema.Raw), Strict: true}}
	return nil
}
