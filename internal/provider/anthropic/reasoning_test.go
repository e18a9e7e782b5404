package anthropic

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// reasoningRuleTests check the reasoning_effort and response_format
// mapping per model kind: want maps a gjson path of the Anthropic body to
// its JSON ("" for absent), or names the refused param as "error".
var reasoningRuleTests = []struct {
	name       string
	reasoning  catalog.Reasoning
	structured bool
	maxOut     int
	body       string
	want       map[string]string
}{
	{"no effort", catalog.ReasoningBudget, false, 0, `{` + hello + `}`, map[string]string{"thinking": "", "max_tokens": "4096"}},
	{"null effort", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":null,` + hello + `}`, map[string]string{"thinking": ""}},
	{"budget low", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low",` + hello + `}`, map[string]string{"thinking": `{"type":"enabled","budget_tokens":1024}`, "max_tokens": "5120"}},
	{"budget minimal", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"minimal",` + hello + `}`, map[string]string{"thinking.budget_tokens": "1024"}},
	{"budget high plus client room", catalog.ReasoningBudget, false, 64000, `{"reasoning_effort":"high","max_tokens":500,` + hello + `}`, map[string]string{"thinking.budget_tokens": "16384", "max_tokens": "16884"}},
	{"budget xhigh capped", catalog.ReasoningBudget, false, 20000, `{"reasoning_effort":"xhigh",` + hello + `}`, map[string]string{"thinking.budget_tokens": "10000", "max_tokens": "20000"}},
	{"budget at the limit", catalog.ReasoningBudget, false, 64000, `{"reasoning_effort":"max",` + hello + `}`, map[string]string{"thinking.budget_tokens": "32000", "max_tokens": "64000"}},
	{"budget none", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"none","temperature":0.1,` + hello + `}`, map[string]string{"thinking": "", "temperature": "0.1"}},
	{"budget fits a small model", catalog.ReasoningBudget, false, 2000, `{"reasoning_effort":"low",` + hello + `}`, map[string]string{"thinking.budget_tokens": "1024", "max_tokens": "2000"}},
	{"budget too big for a small model", catalog.ReasoningBudget, false, 2000, `{"reasoning_effort":"high",` + hello + `}`, map[string]string{"error": "reasoning_effort"}},
	{"adaptive none", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"none","temperature":0.1,` + hello + `}`, map[string]string{"thinking": `{"type":"disabled"}`, "output_config": "", "temperature": "0.1"}},
	{"adaptive minimal", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"minimal",` + hello + `}`, map[string]string{"thinking": `{"type":"adaptive"}`, "output_config": `{"effort":"low"}`, "max_tokens": "4096"}},
	{"adaptive xhigh", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"xhigh",` + hello + `}`, map[string]string{"output_config": `{"effort":"xhigh"}`}},
	{"adaptive max with format", catalog.ReasoningAdaptive, true, 0, `{"reasoning_effort":"max","response_format":{"type":"json_schema","json_schema":{"name":"n","strict":true,"schema":{"type":"object"}}},` + hello + `}`,
		map[string]string{"output_config": `{"effort":"max","format":{"type":"json_schema","schema":{"type":"object"}}}`, "system": ""}},
	{"temperature dropped", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","temperature":0.1,` + hello + `}`, map[string]string{"temperature": "", "top_p": ""}},
	{"top_p kept", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","top_p":0.99,` + hello + `}`, map[string]string{"top_p": "0.99"}},
	{"top_p clamped", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"low","temperature":0.5,"top_p":0.1,` + hello + `}`, map[string]string{"temperature": "", "top_p": "0.95"}},
	{"tool_choice auto", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","tool_choice":"auto",` + weather + `,` + hello + `}`, map[string]string{"tool_choice": `{"type":"auto"}`}},
	{"tool_choice named", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","tool_choice":{"type":"function","function":{"name":"get_weather"}},` + weather + `,` + hello + `}`, map[string]string{"error": "tool_choice"}},
	{"allowed_tools required", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"high","tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}},` + weather + `,` + hello + `}`, map[string]string{"error": "tool_choice"}},
	{"function_call forced", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","function_call":{"name":"f"},"functions":[{"name":"f"}],` + hello + `}`, map[string]string{"error": "function_call"}},
	{"forced without thinking", catalog.ReasoningAdaptive, false, 0, `{"reasoning_effort":"none","tool_choice":"required",` + weather + `,` + hello + `}`, map[string]string{"tool_choice": `{"type":"any"}`}},
	{"no reasoning, none", catalog.ReasoningNone, false, 0, `{"reasoning_effort":"none",` + hello + `}`, map[string]string{"thinking": ""}},
	{"no reasoning, minimal", catalog.ReasoningNone, false, 0, `{"reasoning_effort":"minimal",` + hello + `}`, map[string]string{"thinking": ""}},
	{"no reasoning, low", catalog.ReasoningNone, false, 0, `{"reasoning_effort":"low",` + hello + `}`, map[string]string{"error": "reasoning_effort"}},
	{"effort not a string", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":1,` + hello + `}`, map[string]string{"error": "reasoning_effort"}},
	{"format native", catalog.ReasoningNone, true, 0, `{"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object","properties":{}}}},` + hello + `}`,
		map[string]string{"output_config": `{"format":{"type":"json_schema","schema":{"type":"object","properties":{}}}}`, "system": ""}},
	{"format without schema", catalog.ReasoningNone, true, 0, `{"response_format":{"type":"json_schema","json_schema":{"name":"n"}},` + hello + `}`, map[string]string{"output_config": "", "system": `"` + jsonInstruction + `"`}},
	{"json_object stays a prompt", catalog.ReasoningNone, true, 0, `{"response_format":{"type":"json_object"},` + hello + `}`, map[string]string{"output_config": "", "system": `"` + jsonInstruction + `"`}},
	{"thinking blocks only while thinking", catalog.ReasoningBudget, false, 0, `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","thinking_blocks":[{"type":"redacted_thinking","data":"` + fakeanthropic.RedactedData("x") + `"}]},{"role":"user","content":"b"}]}`,
		map[string]string{"messages.1.content": `"a"`}},
	{"thinking blocks first", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","thinking_blocks":[{"type":"redacted_thinking","data":"` + fakeanthropic.RedactedData("x") + `"}]},{"role":"assistant","content":"b","thinking_blocks":[{"type":"thinking","thinking":"t","signature":"` + fakeanthropic.Signature("t") + `"}]},{"role":"user","content":"c"}]}`,
		map[string]string{"messages.1.content.#.type": `["redacted_thinking","thinking","text","text"]`}},
	{"thinking alone dropped", catalog.ReasoningBudget, false, 0, `{"reasoning_effort":"low","messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"thinking_blocks":[{"type":"thinking","thinking":"t","signature":"` + fakeanthropic.Signature("t") + `"}]},{"role":"user","content":"c"}]}`,
		map[string]string{"messages.#": "1"}},
	{"bad signature type", catalog.ReasoningBudget, false, 0, `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","thinking_blocks":[{"type":"thinking","thinking":"t","signature":5}]},{"role":"user","content":"c"}]}`,
		map[string]string{"error": "messages[1].thinking_blocks[0].signature"}},
	{"thinking_blocks not an array", catalog.ReasoningBudget, false, 0, `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","thinking_blocks":{}},{"role":"user","content":"c"}]}`,
		map[string]string{"error": "messages[1].thinking_blocks"}},
}

// TestReasoningRules runs reasoningRuleTests; every body must pass the
// strict fake.
func TestReasoningRules(t *testing.T) {
	for _, tt := range reasoningRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			r := &provider.Request{Model: "m", UpstreamModel: "claude-fake-1", Body: []byte(tt.body), MaxOutputTokens: tt.maxOut,
				Reasoning: tt.reasoning, StructuredOutputs: tt.structured}
			got, _, err := translateRequest(r, false)
			have := map[string]string{}
			var pe *provider.Error
			switch {
			case errors.As(err, &pe) && pe.Kind == provider.KindBadRequest:
				have["error"] = pe.Param
			case err != nil:
				t.Fatalf("translate: %v", err)
			default:
				if err := fakeanthropic.Check(got); err != nil {
					t.Errorf("the fake refuses %s: %v", got, err)
				}
				for path := range tt.want {
					if v := gjson.GetBytes(got, path); v.Exists() {
						have[path] = compactRaw(v)
					} else {
						have[path] = ""
					}
				}
			}
			if diff := cmp.Diff(tt.want, have); diff != "" {
				t.Errorf("body %s\nmismatch (-want +got):\n%s", got, diff)
			}
		})
	}
}
