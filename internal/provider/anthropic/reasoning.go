package anthropic

import (
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// minBudget is the smallest thinking budget Anthropic accepts.
const minBudget = 1024

// minThinkingTopP is the lowest top_p Anthropic accepts while thinking.
const minThinkingTopP = 0.95

// effortBudget is the thinking budget of a reasoning_effort value for
// models steered by a budget (0 for none), and false for a value the chat
// extension does not define.
func effortBudget(effort string) (int, bool) {
	switch effort {
	case "none":
		return 0, true
	case "minimal", "low":
		return minBudget, true
	case "medium":
		return 4096, true
	case "high":
		return 16384, true
	case "xhigh", "max":
		return 32000, true
	}
	return 0, false
}

// setReasoning maps reasoning_effort onto thinking (and output_config
// effort) by how r's model is steered, and reports whether thinking is
// on. It runs after max_tokens is set, which a budget may raise.
func setReasoning(out *messagesRequest, root gjson.Result, r *provider.Request) (bool, error) {
	v := root.Get("reasoning_effort")
	if !present(v) {
		return false, nil
	}
	budget, ok := effortBudget(v.Str)
	if !ok || v.Type != gjson.String {
		return false, refuse("reasoning_effort", "Expected one of none, minimal, low, medium, high, xhigh, max; got %s.", v.Raw)
	}
	switch {
	case r.Reasoning == catalog.ReasoningBudget && budget == 0:
		return false, nil // thinking is off unless asked for
	case r.Reasoning == catalog.ReasoningBudget:
		return true, setBudget(out, budget, r.MaxOutputTokens)
	case r.Reasoning == catalog.ReasoningAdaptive && budget == 0:
		out.Thinking = &thinkingConfig{Type: "disabled"}
		return false, nil
	case r.Reasoning == catalog.ReasoningAdaptive:
		effort := v.Str
		if effort == "minimal" {
			effort = "low" // adaptive effort starts at low
		}
		out.Thinking = &thinkingConfig{Type: "adaptive"}
		out.OutputConfig = &outputConfig{Effort: effort}
		return true, nil
	case v.Str == "none" || v.Str == "minimal":
		return false, nil // a model that does not think already does what was asked
	}
	return false, unsupported("reasoning_effort", "Model %s does not support reasoning; leave out reasoning_effort or set it to none.", r.Model)
}

// setBudget enables thinking with budget tokens. Anthropic wants the
// budget below max_tokens, which counts thinking and answer together:
// max_tokens becomes the budget plus the answer's room, at most the
// model's limit; when the limit leaves too little room the budget is
// halved, and a request that cannot fit the smallest budget is refused.
func setBudget(out *messagesRequest, budget, limit int) error {
	total := out.MaxTokens + budget
	if limit > 0 {
		total = min(total, limit)
	}
	if total <= budget {
		budget = total / 2
	}
	if budget < minBudget {
		return refuse("reasoning_effort", "Thinking needs max_tokens above %d for this model, whose limit is %d; leave out reasoning_effort or set it to none.", minBudget, limit)
	}
	out.MaxTokens = total
	out.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget}
	return nil
}

// thinkingSampling applies Anthropic's rules for thinking requests:
// temperature must keep its default, so it is dropped (top_k is never
// sent); top_p, which the client may have sent with a temperature, is
// sent instead, at least minThinkingTopP.
func thinkingSampling(out *messagesRequest, root gjson.Result) {
	out.Temperature, out.TopP = nil, nil
	if p := root.Get("top_p"); p.Type == gjson.Number {
		v := min(max(p.Float(), minThinkingTopP), 1)
		out.TopP = &v
	}
}

// checkForcedTool refuses a tool choice that forces a call while
// thinking: Anthropic allows only auto and none then.
func checkForcedTool(out *messagesRequest, legacy bool) error {
	if out.ToolChoice == nil || out.ToolChoice.Type != "any" && out.ToolChoice.Type != "tool" {
		return nil
	}
	p := "tool_choice"
	if legacy {
		p = "function_call"
	}
	return unsupported(p, "%s cannot force a tool while thinking on Claude models; use auto or none, or set reasoning_effort to none.", p)
}

// jsonFormat is output_config.format for response_format json_schema
// when the model constrains its output natively (name and strict have
// no equivalent: the constraint is always strict), else nil.
func jsonFormat(rf gjson.Result, native bool) *outputFormat {
	schema := rf.Get("json_schema.schema")
	if !native || rf.Get("type").Str != "json_schema" || !schema.IsObject() {
		return nil
	}
	return &outputFormat{Type: "json_schema", Schema: []byte(schema.Raw)}
}
