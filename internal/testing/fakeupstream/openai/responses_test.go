package fakeopenai

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

func respFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "responses", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keys lists v's member names in order.
func keys(v gjson.Result) []string {
	var out []string
	v.ForEach(func(k, _ gjson.Result) bool {
		out = append(out, k.Str)
		return true
	})
	return out
}

func TestResponsesFixtures(t *testing.T) {
	s := start(t, Options{})
	tests := []struct {
		request string
		want    []string // output item types
	}{
		{"request_text_basic.json", []string{"message"}},
		{"request_function_tools.json", []string{"function_call"}},
		{"request_function_call_output_stateless.json", []string{"message"}},
		{"request_json_schema.json", []string{"message"}},
		{"request_reasoning.json", []string{"reasoning", "message"}},
		{"request_reasoning_function_call_continuation.json", []string{"reasoning", "message"}},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			got := wantOK(t, post(t, s, "/responses", respFixture(t, tt.request)))
			if diff := cmp.Diff(tt.want, keysOf(got.Get("output.#.type"))); diff != "" {
				t.Errorf("output types (-want +got):\n%s", diff)
			}
			u := got.Get("usage")
			if u.Get("total_tokens").Int() != u.Get("input_tokens").Int()+u.Get("output_tokens").Int() || u.Get("input_tokens").Int() == 0 {
				t.Errorf("usage %s", u.Raw)
			}
		})
	}
}

func keysOf(arr gjson.Result) []string {
	var out []string
	for _, v := range arr.Array() {
		out = append(out, v.Str)
	}
	return out
}

func TestResponsesShape(t *testing.T) {
	s := start(t, Options{CachedTokens: 4})
	got := wantOK(t, post(t, s, "/responses", respFixture(t, "request_text_basic.json")))
	want := gjson.Parse(respFixture(t, "response_text_basic.json"))
	if diff := cmp.Diff(keys(want), keys(got)); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	for _, k := range []string{"instructions", "max_output_tokens", "metadata", "safety_identifier", "prompt_cache_key", "temperature", "text", "reasoning", "tool_choice", "tools"} {
		if got.Get(k).Raw != gjson.Parse(want.Get(k).Raw).Raw && cmp.Diff(decode(t, `{"v":`+want.Get(k).Raw+`}`), decode(t, `{"v":`+got.Get(k).Raw+`}`)) != "" {
			t.Errorf("%s = %s, want %s", k, got.Get(k).Raw, want.Get(k).Raw)
		}
	}
	msg := got.Get("output.0")
	if diff := cmp.Diff(keys(want.Get("output.0")), keys(msg)); diff != "" {
		t.Errorf("message keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(keys(want.Get("usage")), keys(got.Get("usage"))); diff != "" {
		t.Errorf("usage keys (-want +got):\n%s", diff)
	}
	// 7 words + 3 for the input, 9 of instructions.
	if u := got.Get("usage"); u.Get("input_tokens").Int() != 18 || u.Get("input_tokens_details.cached_tokens").Int() != 4 || u.Get("output_tokens").Int() != 12 {
		t.Errorf("usage %s", u.Raw)
	}
	if !strings.HasPrefix(got.Get("id").Str, "resp_") || !strings.HasPrefix(msg.Get("id").Str, "msg_") || got.Get("status").Str != "completed" {
		t.Errorf("response %s", got.Raw)
	}
}

func TestResponsesErrors(t *testing.T) {
	s := start(t, Options{})
	stateless := respFixture(t, "request_function_call_output_stateless.json")
	noCallID, _ := sjson.Delete(stateless, "input.3.call_id")
	noOutput, _ := sjson.Delete(stateless, "input.4")
	noOutput, _ = sjson.Delete(noOutput, "input.3")
	noOutput, _ = sjson.Set(noOutput, "input.1.call_id", "call_Qm3vZt8LrX2nWc5Yp7KdFh1s")
	reasoning := respFixture(t, "request_reasoning.json")
	withTemp, _ := sjson.Set(reasoning, "temperature", 0.2)
	tests := []struct {
		name, body string
		fixture    string // the error body expected, exactly
		status     int
		param      string
		message    string // a prefix, without fixture
	}{
		{name: "missing call_id", body: noCallID, fixture: "error_400_missing_required_parameter.json"},
		{name: "previous_response_id", body: respFixture(t, "request_function_call_output_previous_response_id.json"), fixture: "error_400_previous_response_not_found.json"},
		{name: "temperature on a reasoning model", body: withTemp, fixture: "error_400_unsupported_parameter.json"},
		{name: "call without output", body: noOutput, status: 400, param: "input", message: "No tool output found for function call call_"},
		{name: "output without call", body: `{"model":"gpt-4o","input":[{"type":"function_call_output","call_id":"call_x","output":"1"}]}`, status: 400, param: "input", message: "No tool call found for function call output with call_id call_x."},
		{name: "missing input", body: `{"model":"gpt-4o"}`, status: 400, param: "input", message: "Missing required parameter: 'input'."},
		{name: "missing model", body: `{"input":"hi"}`, status: 400, param: "model", message: "Missing required parameter: 'model'."},
		{name: "chat messages", body: `{"model":"gpt-4o","input":"hi","messages":[]}`, status: 400, param: "messages", message: "Unknown parameter: 'messages'."},
		{name: "chat max_tokens", body: `{"model":"gpt-4o","input":"hi","max_tokens":5}`, status: 400, param: "max_tokens", message: "Unknown parameter"},
		{name: "bad item type", body: `{"model":"gpt-4o","input":[{"type":"bogus"}]}`, status: 400, param: "input[0].type", message: "Invalid value: 'bogus'."},
		{name: "bad role", body: `{"model":"gpt-4o","input":[{"role":"tool","content":"x"}]}`, status: 400, param: "input[0].role", message: "Invalid value: 'tool'."},
		{name: "max_output_tokens below 16", body: `{"model":"gpt-4o","input":"hi","max_output_tokens":5}`, status: 400, param: "max_output_tokens", message: "Invalid 'max_output_tokens': integer below minimum value."},
		{name: "effort on a non-reasoning model", body: `{"model":"gpt-4o","input":"hi","reasoning":{"effort":"low"}}`, status: 400, param: "reasoning.effort", message: "Unsupported parameter"},
		{name: "unknown model", body: `{"model":"gpt-9","input":"hi"}`, status: 404, message: "The model `gpt-9` does not exist"},
		{name: "item reference", body: `{"model":"gpt-4o","input":[{"id":"msg_1"}]}`, status: 400, param: "input", message: "Item with id 'msg_1' not found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, s, "/responses", tt.body)
			if tt.fixture != "" {
				want := respFixture(t, tt.fixture)
				if r.status != 400 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				if diff := cmp.Diff(decode(t, want), decode(t, string(r.body))); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			e := gjson.GetBytes(r.body, "error")
			if r.status != tt.status || e.Get("param").Str != tt.param || !strings.HasPrefix(e.Get("message").Str, tt.message) {
				t.Errorf("got %d %s", r.status, r.body)
			}
		})
	}
}

// TestResponsesReasoningPairing sends back a reasoning model's call with
// and without the reasoning item that came with it.
func TestResponsesReasoningPairing(t *testing.T) {
	s := start(t, Options{})
	first := wantOK(t, post(t, s, "/responses", `{"model":"gpt-5-mini","input":"weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"include":["reasoning.encrypted_content"]}`))
	rs, fc := first.Get("output.0"), first.Get("output.1")
	if rs.Get("type").Str != "reasoning" || !strings.HasPrefix(rs.Get("encrypted_content").Str, "gAAAA") || fc.Get("type").Str != "function_call" {
		t.Fatalf("output %s", first.Get("output").Raw)
	}
	output := `{"type":"function_call_output","call_id":` + fc.Get("call_id").Raw + `,"output":"sunny"}`
	tools := `,"tools":[{"type":"function","name":"get_weather","parameters":{}}]`
	paired := wantOK(t, post(t, s, "/responses", `{"model":"gpt-5-mini","input":[{"role":"user","content":"weather?"},`+rs.Raw+`,`+fc.Raw+`,`+output+`]`+tools+`}`))
	if got := paired.Get("output.1.type").Str; got != "message" {
		t.Errorf("after the tool output: %s", paired.Get("output").Raw)
	}
	r := post(t, s, "/responses", `{"model":"gpt-5-mini","input":[{"role":"user","content":"weather?"},`+fc.Raw+`,`+output+`]`+tools+`}`)
	want := "Item '" + fc.Get("id").Str + "' of type 'function_call' was provided without its required 'reasoning' item: '" + rs.Get("id").Str + "'."
	if r.status != 400 || gjson.GetBytes(r.body, "error.message").Str != want || gjson.GetBytes(r.body, "error.param").Str != "input" {
		t.Errorf("got %d %s, want message %q", r.status, r.body, want)
	}
}

func TestResponsesToolChoice(t *testing.T) {
	s := start(t, Options{})
	tool := func(name string) string {
		return `{"type":"function","name":"` + name + `","parameters":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`
	}
	two := `,"tools":[` + tool("a") + `,` + tool("b") + `]`
	answered := `[{"role":"user","content":"go"},{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]`
	tests := []struct {
		name, input, extra string
		want               []string
	}{
		{"parallel", `"go"`, two, []string{"function_call:a", "function_call:b"}},
		{"not parallel", `"go"`, two + `,"parallel_tool_calls":false`, []string{"function_call:a"}},
		{"forced", `"go"`, two + `,"tool_choice":{"type":"function","name":"b"}`, []string{"function_call:b"}},
		{"allowed", `"go"`, two + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"b"}]}`, []string{"function_call:b"}},
		{"none", `"go"`, two + `,"tool_choice":"none"`, []string{"message:"}},
		{"after output", answered, two, []string{"message:"}},
		{"required after output", answered, two + `,"tool_choice":"required"`, []string{"function_call:a", "function_call:b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wantOK(t, post(t, s, "/responses", `{"model":"gpt-4o","input":`+tt.input+tt.extra+`}`))
			var items []string
			for _, it := range got.Get("output").Array() {
				items = append(items, it.Get("type").Str+":"+it.Get("name").Str)
			}
			if diff := cmp.Diff(tt.want, items); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}
