package fakeanthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// thinkBase is a valid request with thinking on and a tool.
const thinkBase = `{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},"tools":[` + toolDef + `],"messages":[{"role":"user","content":"Weather?"}]}`

// signed is a thinking block the fake signed.
func signed(text string) string {
	b, _ := json.Marshal(map[string]string{"type": "thinking", "thinking": text, "signature": Signature(text)})
	return string(b)
}

// loop is a tool loop whose assistant turn holds blocks.
func loop(blocks ...string) string {
	return `[{"role":"user","content":"Weather?"},{"role":"assistant","content":[` + strings.Join(blocks, ",") +
		`]},{"role":"user","content":[` + result("t1") + `]}]`
}

const useT1 = `{"type":"tool_use","id":"t1","name":"f","input":{}}`

// thinkingRuleTests: the thinking, output_config and thinking block rules,
// as edits of thinkBase (sjson path → raw JSON, "-" deletes).
var thinkingRuleTests = []struct {
	name string
	edit map[string]string
	want string // the error message; "" for accepted
}{
	{"valid", nil, ""},
	{"budget too small", map[string]string{"thinking.budget_tokens": "1000"}, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
	{"budget missing", map[string]string{"thinking.budget_tokens": "-"}, "thinking.enabled.budget_tokens: Field required"},
	{"budget not below max_tokens", map[string]string{"max_tokens": "2048"}, "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"},
	{"unknown type", map[string]string{"thinking": `{"type":"on"}`}, "thinking.type: Input tag 'on' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'"},
	{"budget on adaptive", map[string]string{"thinking.type": `"adaptive"`, "model": `"claude-opus-4-6"`}, "thinking.adaptive.budget_tokens: Extra inputs are not permitted"},
	{"bad display", map[string]string{"thinking.display": `"full"`}, "thinking.enabled.display: Input should be 'summarized' or 'omitted'"},
	{"adaptive on 4.6", map[string]string{"thinking": `{"type":"adaptive","display":"omitted"}`, "model": `"claude-opus-4-6"`, "output_config": `{"effort":"max"}`}, ""},
	{"adaptive on 4.5", map[string]string{"thinking": `{"type":"adaptive"}`}, "thinking.type.adaptive is not supported for this model. Use thinking.type.enabled with budget_tokens instead."},
	{"enabled on 4.6", map[string]string{"model": `"claude-sonnet-4-6"`}, ""},
	{"enabled on 4.7", map[string]string{"model": `"claude-opus-4-7"`}, "thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior."},
	{"thinking on 3.5", map[string]string{"model": `"claude-3-5-haiku-20241022"`}, "thinking: claude-3-5-haiku-20241022 does not support extended thinking"},
	{"disabled anywhere", map[string]string{"thinking": `{"type":"disabled"}`, "model": `"claude-3-5-haiku-20241022"`}, ""},
	{"effort on sonnet 4.5", map[string]string{"output_config": `{"effort":"low"}`}, "output_config.effort: effort is not supported for claude-sonnet-4-5"},
	{"bad effort", map[string]string{"output_config": `{"effort":"minimal"}`}, "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"},
	{"format", map[string]string{"output_config": `{"format":{"type":"json_schema","schema":{"type":"object"}}}`}, ""},
	{"format with name", map[string]string{"output_config": `{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}}`}, "output_config.format.name: Extra inputs are not permitted"},
	{"format on opus 4.1", map[string]string{"output_config": `{"format":{"type":"json_schema","schema":{}}}`, "model": `"claude-opus-4-1"`}, "output_config.format: structured outputs are not supported for claude-opus-4-1"},
	{"temperature", map[string]string{"temperature": "0.5"}, "`temperature` may only be set to 1 when thinking is enabled." + docsNote},
	{"temperature 1", map[string]string{"temperature": "1"}, ""},
	{"top_k", map[string]string{"top_k": "5"}, "`top_k` must be unset when thinking is enabled." + docsNote},
	{"low top_p", map[string]string{"top_p": "0.9"}, "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled." + docsNote},
	{"top_p 0.95", map[string]string{"top_p": "0.95"}, ""},
	{"forced tool", map[string]string{"tool_choice": `{"type":"any"}`}, "Thinking may not be enabled when tool_choice forces tool use."},
	{"sampling free when disabled", map[string]string{"thinking": `{"type":"disabled"}`, "temperature": "0.2", "tool_choice": `{"type":"any"}`}, ""},
	{"tool loop with its thinking", map[string]string{"messages": loop(signed("I should call f."), useT1)}, ""},
	{"redacted block first", map[string]string{"messages": loop(`{"type":"redacted_thinking","data":"`+RedactedData("r1")+`"}`, signed("x"), useT1)}, ""},
	{"tool loop without thinking", map[string]string{"messages": loop(useT1)}, "fixture:error_400_thinking_block_required.json"},
	{"modified thinking", map[string]string{"messages": loop(strings.Replace(signed("I should call f."), "call", "use", 1), useT1)}, "messages.1.content.0: Invalid `signature` in `thinking` block"},
	{"foreign signature", map[string]string{"messages": loop(`{"type":"thinking","thinking":"x","signature":"EqQDCkYIBxgC"}`, useT1)}, "messages.1.content.0: Invalid `signature` in `thinking` block"},
	{"forged redacted", map[string]string{"messages": loop(`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}`, useT1)}, "messages.1.content.0: Invalid `data` in `redacted_thinking` block"},
	{"thinking block while off", map[string]string{"thinking": "-", "messages": loop(signed("x"), useT1)}, "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."},
	{"earlier turns need none", map[string]string{"messages": `[{"role":"user","content":"a"},{"role":"assistant","content":[` + useT1 + `]},{"role":"user","content":[` + result("t1") + `]},{"role":"assistant","content":"done"},{"role":"user","content":"b"}]`}, ""},
}

func TestCheckThinkingRules(t *testing.T) {
	for _, tt := range thinkingRuleTests {
		t.Run(tt.name, func(t *testing.T) { checkEdit(t, []byte(thinkBase), tt.edit, tt.want) })
	}
}

// The fixture continuation is valid once its thinking block carries the
// fake's signature.
func TestCheckThinkingFixture(t *testing.T) {
	body := fixture(t, "thinking_tool_result_continuation.json")
	if err := Check(body); err == nil || !strings.Contains(err.Error(), "Invalid `signature`") {
		t.Errorf("Check with Anthropic's signature = %v, want an invalid signature", err)
	}
	text := gjson.GetBytes(body, "messages.1.content.0.thinking").Str
	body, _ = sjson.SetBytes(body, "messages.1.content.0.signature", Signature(text))
	if err := Check(body); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestSignatures(t *testing.T) {
	if !validSignature("a b", Signature("a b")) || validSignature("a b ", Signature("a b")) || validSignature("", "") {
		t.Error("thinking signatures do not tell their text")
	}
	d := RedactedData("seed")
	if !validRedacted(d) || validRedacted(d[:len(d)-4]+"AAA=") || validRedacted("") || validRedacted("!!") {
		t.Error("redacted data does not verify")
	}
}

// Answers with thinking on start with a signed thinking block, whole and
// streamed, and count the thinking tokens.
func TestThinkingAnswers(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	const ask = `{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"Say hello."}]}`
	resp := post(t, s, "/v1/messages", ask)
	b := readAll(t, resp.Body)
	want := gjson.ParseBytes(fixture(t, "messages_response_thinking.json"))
	got := gjson.ParseBytes(b)
	if diff := cmp.Diff(keySet(want.Get("content.0")), keySet(got.Get("content.0"))); diff != "" {
		t.Errorf("thinking block members mismatch (-fixture +fake):\n%s", diff)
	}
	text := got.Get("content.0.thinking").Str
	if got.Get("content.#.type").Raw != `["thinking","text"]` || text != "The user wrote: Say hello. I can answer now." ||
		got.Get("content.0.signature").Str != Signature(text) {
		t.Errorf("answer %s", b)
	}
	if u := got.Get("usage"); u.Get("output_tokens_details.thinking_tokens").Int() != 9 || u.Get("output_tokens").Int() != 9+defaultWords {
		t.Errorf("usage %s", u.Raw)
	}

	resp = post(t, s, "/v1/messages", strings.Replace(ask, `"messages"`, `"stream":true,"messages"`, 1))
	names, data := readEvents(t, resp.Body)
	wantNames, _ := readEvents(t, strings.NewReader(string(fixture(t, "messages_stream_thinking.sse"))))
	if diff := cmp.Diff(collapse(wantNames), collapse(names)); diff != "" {
		t.Errorf("event order mismatch (-fixture +fake):\n%s", diff)
	}
	var thought, sig string
	for _, d := range data {
		thought += gjson.Get(d, "delta.thinking").Str
		sig += gjson.Get(d, "delta.signature").Str
		if gjson.Get(d, "type").Str == "message_delta" && gjson.Get(d, "usage.output_tokens_details.thinking_tokens").Int() != 9 {
			t.Errorf("message_delta %s", d)
		}
	}
	if thought != text || sig != Signature(text) {
		t.Errorf("streamed thinking %q signed %q", thought, sig)
	}
}

// Thinking display omitted, a redacted block on request, and a JSON
// answer for output_config.format.
func TestThinkingVariants(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	tests := []struct{ name, body, types, first string }{
		{"omitted", `{"model":"claude-opus-4-6","max_tokens":100,"thinking":{"type":"adaptive","display":"omitted"},"messages":[{"role":"user","content":"hi"}]}`,
			`["thinking","text"]`, `{"type":"thinking","thinking":"","signature":"` + Signature("") + `"}`},
		{"redacted", `{"model":"claude-opus-4-6","max_tokens":100,"thinking":{"type":"adaptive"},"messages":[{"role":"user","content":"fake:redacted-thinking"}]}`,
			`["redacted_thinking","thinking","text"]`, ""},
		{"format", `{"model":"claude-haiku-4-5","max_tokens":100,"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}},"messages":[{"role":"user","content":"City?"}]}`,
			`["text"]`, `{"type":"text","text":"{\"city\":\"Paris\"}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := readAll(t, post(t, s, "/v1/messages", tt.body).Body)
			got := gjson.GetBytes(b, "content")
			if got.Get("#.type").Raw != tt.types || tt.first != "" && got.Get("0").Raw != tt.first {
				t.Errorf("content %s", got.Raw)
			}
			if d := got.Get("0.data"); tt.name == "redacted" && !validRedacted(d.Str) {
				t.Errorf("redacted data %s", d.Raw)
			}
		})
	}
}
