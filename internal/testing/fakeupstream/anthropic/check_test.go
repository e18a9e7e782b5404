package fakeanthropic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The Anthropic request fixtures are valid requests.
func TestCheckFixtures(t *testing.T) {
	for _, name := range []string{"messages_request_basic.json", "messages_request_system_blocks_and_image.json", "messages_request_tools_roundtrip.json"} {
		t.Run(name, func(t *testing.T) {
			if err := Check(fixture(t, name)); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
	roundtrip := fixture(t, "messages_request_tools_roundtrip.json")
	gjson.GetBytes(fixture(t, "tool_choice_variants.json"), "@this").ForEach(func(k, v gjson.Result) bool {
		t.Run("tool_choice "+k.Str, func(t *testing.T) {
			b, _ := sjson.SetRawBytes(roundtrip, "tool_choice", []byte(v.Raw))
			if err := Check(b); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
		return true
	})
}

// toolDef, use and result build tool requests for checkRuleTests.
const toolDef = `{"name":"f","input_schema":{"type":"object"}}`

func use(id string) string {
	return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"f","input":{}}]}`
}

func result(id string) string {
	return `{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}`
}

// checkRuleTests: each rule of the real API the fake enforces, as an edit
// of a valid request (sjson path → raw JSON, "-" deletes), and the error
// message ("" when accepted; "fixture:<file>" for a fixture's message).
var checkRuleTests = []struct {
	name string
	edit map[string]string
	want string // the error message; "" for accepted
}{
	{"valid", nil, ""},
	{"unknown field", map[string]string{"frequency_penalty": "0"}, "frequency_penalty: Extra inputs are not permitted"},
	{"no max_tokens", map[string]string{"max_tokens": "-"}, "max_tokens: Field required"},
	{"max_tokens zero", map[string]string{"max_tokens": "0"}, "max_tokens: Input should be greater than or equal to 1"},
	{"max_tokens over the model's", map[string]string{"max_tokens": "64001"}, "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5"},
	{"unknown model", map[string]string{"model": `"claude-sonnet-9"`}, "model: claude-sonnet-9"},
	{"fake model", map[string]string{"model": `"claude-fake-x"`}, ""},
	{"temperature over 1", map[string]string{"temperature": "1.5"}, "temperature: Input should be less than or equal to 1 and greater than or equal to 0"},
	{"temperature and top_p", map[string]string{"temperature": "0.5", "top_p": "0.9"}, "`temperature` and `top_p` cannot both be specified for this model. Please use only one."},
	{"both on an older model", map[string]string{"temperature": "0.5", "top_p": "0.9", "model": `"claude-3-5-haiku-20241022"`}, ""},
	{"empty stop sequence", map[string]string{"stop_sequences": `[""]`}, "stop_sequences: each stop sequence must be non-empty"},
	{"blank stop sequence", map[string]string{"stop_sequences": `["\n"]`}, "stop_sequences: each stop sequence must contain non-whitespace"},
	{"metadata field", map[string]string{"metadata": `{"user":"x"}`}, "metadata.user: Extra inputs are not permitted"},
	{"empty system block", map[string]string{"system": `[{"type":"text","text":""}]`}, "system.0.text: text content blocks must be non-empty"},
	{"first not user", map[string]string{"messages": `[{"role":"assistant","content":"hi"}]`}, `messages: first message must use the "user" role`},
	{"not alternating", map[string]string{"messages": `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`}, `messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row`},
	{"system role", map[string]string{"messages": `[{"role":"system","content":"a"}]`}, "messages.0.role: Input should be 'user' or 'assistant'"},
	{"empty content", map[string]string{"messages": `[{"role":"user","content":""}]`}, "messages.0: all messages must have non-empty content except for the optional final assistant message"},
	{"empty final assistant", map[string]string{"messages": `[{"role":"user","content":"a"},{"role":"assistant","content":[]}]`}, ""},
	{"empty text block", map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":""}]}]`}, "messages.0.content.0.text: text content blocks must be non-empty"},
	{"blank text block", map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":" \n"}]}]`}, "messages.0.content.0.text: text content blocks must contain non-whitespace text"},
	{"trailing whitespace", map[string]string{"messages": `[{"role":"user","content":"a"},{"role":"assistant","content":"b "}]`}, "messages: final assistant content cannot end with trailing whitespace"},
	{"bmp image", map[string]string{"messages": `[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]}]`}, `messages.0.content.0.source.media_type: Input should be one of the supported media types, got "image/bmp"`},
	{"tool_use in a user turn", map[string]string{"messages": `[{"role":"user","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]`}, "messages.0.content.0.type: Input tag 'tool_use' found using 'type' does not match any of the expected tags for a user message"},
	{"tool round trip", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t1") + `,{"role":"user","content":[` + result("t1") + `,{"type":"text","text":"go on"}]}]`}, ""},
	{"no tools", map[string]string{"messages": `[{"role":"user","content":"a"},` + use("t1") + `,{"role":"user","content":[` + result("t1") + `]}]`}, "Requests which include `tool_use` or `tool_result` blocks must define tools."},
	{"bad tool id", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t.1") + `,{"role":"user","content":[` + result("t.1") + `]}]`}, "messages.1.content.0.id: String should match pattern '^[a-zA-Z0-9_-]+$'"},
	{"result missing", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("toolu_01A09q90qw90lq917835lq9") + `,{"role":"user","content":"b"}]`},
		"fixture:error_400_tool_result_missing.json"},
	{"unexpected result", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t1") + `,{"role":"user","content":[` + result("t1") + `,` + result("t2") + `]}]`},
		"messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: t2. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
	{"result after text", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t1") + `,{"role":"user","content":[{"type":"text","text":"b"},` + result("t1") + `]}]`},
		"messages.2.content.1: `tool_result` blocks must come before any other content in the message"},
	{"use left at the end", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t1") + `]`},
		"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
	{"duplicate use ids", map[string]string{"tools": "[" + toolDef + "]", "messages": `[{"role":"user","content":"a"},` + use("t1") + `,{"role":"user","content":[` + result("t1") + `]},` + use("t1") + `,{"role":"user","content":[` + result("t1") + `]}]`},
		"messages.3.content.0: `tool_use` ids must be unique"},
	{"tool name", map[string]string{"tools": `[{"name":"a b","input_schema":{"type":"object"}}]`}, "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"},
	{"tool schema type", map[string]string{"tools": `[{"name":"f","input_schema":{"properties":{}}}]`}, "tools.0.input_schema.type: Input should be 'object'"},
	{"duplicate tools", map[string]string{"tools": "[" + toolDef + "," + toolDef + "]"}, "tools: Tool names must be unique."},
	{"tool_choice without tools", map[string]string{"tool_choice": `{"type":"auto"}`}, "tool_choice: tool_choice may only be specified while providing tools."},
	{"unknown tool choice", map[string]string{"tools": "[" + toolDef + "]", "tool_choice": `{"type":"tool","name":"g"}`}, `tool_choice.tool.name: Tool "g" not found in the tools`},
	{"none with parallel flag", map[string]string{"tools": "[" + toolDef + "]", "tool_choice": `{"type":"none","disable_parallel_tool_use":true}`}, "tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted"},
}

// TestCheckRules runs checkRuleTests on edits of messages_request_basic.
func TestCheckRules(t *testing.T) {
	base := fixture(t, "messages_request_basic.json")
	base, _ = sjson.SetBytes(base, "model", "claude-sonnet-4-5")
	for _, tt := range checkRuleTests {
		t.Run(tt.name, func(t *testing.T) { checkEdit(t, base, tt.edit, tt.want) })
	}
}

// checkEdit checks base edited by edit (sjson path → raw JSON, "-"
// deletes) and compares the error message with want ("" for accepted,
// "fixture:<file>" for a fixture's message).
func checkEdit(t *testing.T, base []byte, edit map[string]string, want string) {
	t.Helper()
	if name, ok := strings.CutPrefix(want, "fixture:"); ok {
		want = gjson.GetBytes(fixture(t, name), "error.message").Str
	}
	body := base
	for path, raw := range edit {
		if raw == "-" {
			body, _ = sjson.DeleteBytes(body, path)
		} else {
			body, _ = sjson.SetRawBytes(body, path, []byte(raw))
		}
	}
	got := ""
	if err := Check(body); err != nil {
		got = err.(*apiError).message
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check(%s) mismatch (-want +got):\n%s", body, diff)
	}
}

func TestVersion(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-3-5-sonnet-20241022": false, "claude-sonnet-4-20250514": false, "claude-sonnet-4-5-20250929": true,
		"claude-haiku-4-5": true, "claude-opus-4-1": true, "claude-sonnet-5": true, "claude-fake-anything": true, "claude-3-haiku-20240307": false,
	} {
		if got := exclusiveSampling(model); got != want {
			t.Errorf("exclusiveSampling(%q) = %v, want %v", model, got, want)
		}
	}
}
