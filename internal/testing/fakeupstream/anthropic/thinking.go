package fakeanthropic

import (
	"github.com/tidwall/gjson"
)

// thinking is a request's thinking configuration.
type thinking struct {
	typ     string // enabled, adaptive, disabled; "" when absent
	budget  int    // budget_tokens of enabled
	omitted bool   // display omitted: thinking text left out of answers
}

// on reports whether the model thinks before answering.
func (t thinking) on() bool { return t.typ == "enabled" || t.typ == "adaptive" }

var (
	thinkingFields = map[string]map[string]bool{
		"enabled":  keys("type", "budget_tokens", "display"),
		"adaptive": keys("type", "display"),
		"disabled": keys("type"),
	}
	outputConfigFields = keys("effort", "format")
	formatFields       = keys("type", "schema")
	efforts            = keys("low", "medium", "high", "xhigh", "max")
)

// docsNote ends Anthropic's messages about thinking's feature rules.
const docsNote = " Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility"

// checkThinking checks the shape of thinking and output_config.
func (q *request) checkThinking(root gjson.Result) error {
	if th := root.Get("thinking"); th.Exists() {
		if !th.IsObject() {
			return invalid("thinking: Input should be a valid dictionary")
		}
		typ := th.Get("type").Str
		fields, ok := thinkingFields[typ]
		if !ok {
			return invalid("thinking.type: Input tag '%s' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'", typ)
		}
		if err := checkKeys(th, "thinking."+typ, fields); err != nil {
			return err
		}
		if err := q.readThinking(typ, th); err != nil {
			return err
		}
	}
	oc := root.Get("output_config")
	if !oc.Exists() {
		return nil
	}
	if !oc.IsObject() {
		return invalid("output_config: Input should be a valid dictionary")
	}
	if err := checkKeys(oc, "output_config", outputConfigFields); err != nil {
		return err
	}
	if e := oc.Get("effort"); e.Exists() && !efforts[e.Str] {
		return invalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")
	}
	return q.readFormat(oc.Get("format"))
}

func (q *request) readThinking(typ string, th gjson.Result) error {
	q.thinking.typ = typ
	switch d := th.Get("display"); {
	case !d.Exists():
	case d.Str == "omitted":
		q.thinking.omitted = true
	case d.Str != "summarized":
		return invalid("thinking.%s.display: Input should be 'summarized' or 'omitted'", typ)
	}
	if typ != "enabled" {
		return nil
	}
	b := th.Get("budget_tokens")
	switch {
	case !b.Exists():
		return invalid("thinking.enabled.budget_tokens: Field required")
	case b.Type != gjson.Number || b.Float() != float64(b.Int()):
		return invalid("thinking.enabled.budget_tokens: Input should be a valid integer")
	case b.Int() < 1024:
		return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	}
	q.thinking.budget = int(min(b.Int(), 1<<31))
	return nil
}

func (q *request) readFormat(f gjson.Result) error {
	switch {
	case !f.Exists():
		return nil
	case !f.IsObject():
		return invalid("output_config.format: Input should be a valid dictionary")
	case f.Get("type").Str != "json_schema":
		return invalid("output_config.format.type: Input should be 'json_schema'")
	}
	if err := checkKeys(f, "output_config.format", formatFields); err != nil {
		return err
	}
	if !f.Get("schema").IsObject() {
		return invalid("output_config.format.schema: Input should be a valid dictionary")
	}
	q.format = f.Get("schema")
	return nil
}

// checkThinkingModel checks what the model decides: which thinking types,
// effort and output formats it takes; then, while it thinks, the budget
// against max_tokens, the sampling parameters and the tool choice.
func (q *request) checkThinkingModel(root gjson.Result) error {
	switch t := q.thinking.typ; {
	case t == "enabled" && !thinks(q.model):
		return invalid("thinking: %s does not support extended thinking", q.model)
	case t == "enabled" && !budgeted(q.model):
		return invalid("thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior.")
	case t == "adaptive" && !adaptive(q.model):
		return invalid("thinking.type.adaptive is not supported for this model. Use thinking.type.enabled with budget_tokens instead.")
	case root.Get("output_config.effort").Exists() && !effortSteered(q.model):
		return invalid("output_config.effort: effort is not supported for %s", q.model)
	case q.format.Exists() && !structured(q.model):
		return invalid("output_config.format: structured outputs are not supported for %s", q.model)
	case !q.thinking.on():
		return nil
	case t == "enabled" && q.thinking.budget >= q.maxTokens:
		return invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	}
	if v := root.Get("temperature"); v.Exists() && v.Float() != 1 {
		return invalid("`temperature` may only be set to 1 when thinking is enabled." + docsNote)
	}
	if root.Get("top_k").Exists() {
		return invalid("`top_k` must be unset when thinking is enabled." + docsNote)
	}
	if v := root.Get("top_p"); v.Exists() && v.Float() < 0.95 {
		return invalid("`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled." + docsNote)
	}
	if q.choice.typ == "any" || q.choice.typ == "tool" {
		return invalid("Thinking may not be enabled when tool_choice forces tool use.")
	}
	return nil
}

// checkThinkingTurn checks the last assistant message against the
// thinking setting: while thinking, one that used tools must start with
// a thinking block; otherwise it must hold none.
func (q *request) checkThinkingTurn(root gjson.Result) error {
	i, blocks := lastAssistant(root.Get("messages"))
	if i < 0 {
		return nil
	}
	if !q.thinking.on() {
		for j, b := range blocks {
			if isThinking(b) {
				return invalid("%s: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.", at(at("messages", i)+".content", j))
			}
		}
		return nil
	}
	usesTools := false
	for _, b := range blocks {
		usesTools = usesTools || b.Get("type").Str == "tool_use"
	}
	if usesTools && !isThinking(blocks[0]) {
		return invalid("%s.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final assistant message must start with a thinking block (preceding the lastmost set of `tool_use` and `tool_result` blocks).",
			at("messages", i), blocks[0].Get("type").Str)
	}
	return nil
}

// lastAssistant returns the index and blocks of the last assistant
// message; -1 when there is none or it is empty.
func lastAssistant(msgs gjson.Result) (int, []gjson.Result) {
	arr := msgs.Array()
	for i := len(arr) - 1; i >= 0; i-- {
		if arr[i].Get("role").Str != "assistant" {
			continue
		}
		blocks := arr[i].Get("content").Array() // a string content holds no blocks
		if arr[i].Get("content").Type == gjson.String || len(blocks) == 0 {
			return -1, nil
		}
		return i, blocks
	}
	return -1, nil
}

func isThinking(b gjson.Result) bool {
	t := b.Get("type").Str
	return t == "thinking" || t == "redacted_thinking"
}
