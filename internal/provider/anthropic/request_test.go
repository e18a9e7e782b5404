package anthropic

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// hello is a minimal conversation for cases about other fields.
const hello = `"messages":[{"role":"user","content":"hi"}]`

// weather is one function tool.
const weather = `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

// translateRuleTests check each translation rule on the fields it
// touches: want maps a gjson path of the Anthropic body to its JSON, ""
// for absent.
var translateRuleTests = []struct {
	name   string
	body   string
	maxOut int
	want   map[string]string
}{
	{"max_completion_tokens wins", `{"max_completion_tokens":10,"max_tokens":20,` + hello + `}`, 100, map[string]string{"max_tokens": "10"}},
	{"max_tokens", `{"max_tokens":20,` + hello + `}`, 100, map[string]string{"max_tokens": "20"}},
	{"catalogue limit", `{` + hello + `}`, 100, map[string]string{"max_tokens": "100"}},
	{"default 4096", `{` + hello + `}`, 0, map[string]string{"max_tokens": "4096"}},
	{"lowered to the limit", `{"max_tokens":500,` + hello + `}`, 100, map[string]string{"max_tokens": "100"}},
	{"temperature kept", `{"temperature":0.7,` + hello + `}`, 0, map[string]string{"temperature": "0.7", "top_p": ""}},
	{"temperature clamped", `{"temperature":2,` + hello + `}`, 0, map[string]string{"temperature": "1"}},
	{"temperature zero", `{"temperature":0,` + hello + `}`, 0, map[string]string{"temperature": "0"}},
	{"temperature over top_p", `{"temperature":0.5,"top_p":0.9,` + hello + `}`, 0, map[string]string{"temperature": "0.5", "top_p": ""}},
	{"top_p alone", `{"top_p":0.9,` + hello + `}`, 0, map[string]string{"temperature": "", "top_p": "0.9"}},
	{"null sampling", `{"temperature":null,"top_p":null,"stop":null,"n":null,` + hello + `}`, 0, map[string]string{"temperature": "", "top_p": "", "stop_sequences": ""}},
	{"stop string", `{"stop":"END",` + hello + `}`, 0, map[string]string{"stop_sequences": `["END"]`}},
	{"stop blanks dropped", `{"stop":["\n"," ","","x"],` + hello + `}`, 0, map[string]string{"stop_sequences": `["x"]`}},
	{"stop all blank", `{"stop":"\n\n",` + hello + `}`, 0, map[string]string{"stop_sequences": ""}},
	{"user", `{"user":"u1","safety_identifier":"s1",` + hello + `}`, 0, map[string]string{"metadata": `{"user_id":"u1"}`}},
	{"safety_identifier", `{"safety_identifier":"s1",` + hello + `}`, 0, map[string]string{"metadata": `{"user_id":"s1"}`}},
	{"dropped fields", `{"seed":1,"logit_bias":{"1":2},"presence_penalty":1,"frequency_penalty":1,"logprobs":false,"top_logprobs":2,"n":1,"service_tier":"flex","store":true,"metadata":{"a":"b"},"reasoning_effort":"none","stream_options":{"include_usage":true},` + hello + `}`, 0,
		map[string]string{"metadata": "", "seed": "", "messages": `[{"role":"user","content":"hi"}]`}},
	{"json_object", `{"response_format":{"type":"json_object"},"messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}]}`, 0,
		map[string]string{"system.#": "2", "system.0.text": `"S"`, "system.1.text": `"` + jsonInstruction + `"`}},
	{"response_format text", `{"response_format":{"type":"text"},` + hello + `}`, 0, map[string]string{"system": ""}},
	{"one system string", `{"messages":[{"role":"developer","content":[{"type":"text","text":"D"}]},{"role":"user","content":"hi"}]}`, 0, map[string]string{"system": `"D"`}},
	{"empty user dropped", `{"messages":[{"role":"user","content":""},{"role":"assistant","content":"A"},{"role":"user","content":"B"}]}`, 0,
		map[string]string{"messages": `[{"role":"user","content":"(conversation start)"},{"role":"assistant","content":"A"},{"role":"user","content":"B"}]`}},
	{"blank assistant dropped", `{"messages":[{"role":"user","content":"A"},{"role":"assistant","content":"  "},{"role":"user","content":"B"}]}`, 0,
		map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}]`}},
	{"tool_choice auto", `{"tool_choice":"auto",` + weather + `,` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"auto"}`}},
	{"tool_choice default", `{` + weather + `,` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"auto"}`}},
	{"tool_choice none", `{"tool_choice":"none","parallel_tool_calls":false,` + weather + `,` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"none"}`}},
	{"tool_choice required", `{"tool_choice":"required",` + weather + `,` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"any"}`}},
	{"tool_choice named", `{"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false,` + weather + `,` + hello + `}`, 0,
		map[string]string{"tool_choice": `{"type":"tool","name":"get_weather","disable_parallel_tool_use":true}`}},
	{"parallel off", `{"parallel_tool_calls":false,` + weather + `,` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"auto","disable_parallel_tool_use":true}`}},
	{"tool_choice without tools", `{"tool_choice":"required",` + hello + `}`, 0, map[string]string{"tool_choice": "", "tools": ""}},
	{"function_call none", `{"function_call":"none","functions":[{"name":"f"}],` + hello + `}`, 0,
		map[string]string{"tool_choice": `{"type":"none"}`, "tools": `[{"name":"f","input_schema":{"type":"object","properties":{}}}]`}},
	{"function_call auto", `{"function_call":"auto","functions":[{"name":"f"}],` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"auto","disable_parallel_tool_use":true}`}},
	{"function_call named", `{"function_call":{"name":"f"},"functions":[{"name":"f"}],` + hello + `}`, 0, map[string]string{"tool_choice": `{"type":"tool","name":"f","disable_parallel_tool_use":true}`}},
	{"allowed_tools auto", `{"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"b"}}]}},"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}],` + hello + `}`, 0,
		map[string]string{"tool_choice": `{"type":"auto"}`, "tools.#.name": `["b"]`}},
	{"schema without type", `{"tools":[{"type":"function","function":{"name":"a","parameters":{"properties":{}}}}],` + hello + `}`, 0, map[string]string{"tools.0.input_schema": `{"properties":{},"type":"object"}`}},
	{"image gif", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/GIF;base64,R0lG"}}]}]}`, 0,
		map[string]string{"messages.0.content.0.source": `{"type":"base64","media_type":"image/gif","data":"R0lG"}`}},
	{"image url string", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":"http://x.test/a.png"}]}]}`, 0,
		map[string]string{"messages.0.content.0.source": `{"type":"url","url":"http://x.test/a.png"}`}},
	{"arguments object and blank", `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"x":1}}},{"id":"b","type":"function","function":{"name":"f","arguments":" "}}]},{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"b","content":"2"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, 0,
		map[string]string{"messages.1.content.#.input": `[{"x":1},{}]`}},
	{"duplicate ids across turns", `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c0","content":"1"},{"role":"assistant","tool_calls":[{"id":"c0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c0","content":"2"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, 0,
		map[string]string{"messages.1.content.0.id": `"c0"`, "messages.3.content.0.id": `"c0_3"`, "messages.4.content.0.tool_use_id": `"c0_3"`}},
}

// TestTranslateRules runs translateRuleTests; every body must pass the
// strict fake.
func TestTranslateRules(t *testing.T) {
	for _, tt := range translateRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			r := &provider.Request{Model: "m", UpstreamModel: "claude-fake-1", Body: []byte(tt.body), MaxOutputTokens: tt.maxOut}
			got, _, err := translateRequest(r, false)
			if err != nil {
				t.Fatalf("translate: %s", describe(err))
			}
			if err := fakeanthropic.Check(got); err != nil {
				t.Errorf("the fake refuses %s: %v", got, err)
			}
			have := map[string]string{}
			for path := range tt.want {
				v := gjson.GetBytes(got, path)
				have[path] = compactRaw(v)
				if !v.Exists() {
					have[path] = ""
				}
			}
			if diff := cmp.Diff(tt.want, have); diff != "" {
				t.Errorf("body %s\nmismatch (-want +got):\n%s", got, diff)
			}
		})
	}
}

// callF is an assistant message calling f with id.
func callF(id string) string {
	return `{"role":"assistant","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"f","arguments":"{}"}}]}`
}

// toolF offers f.
const toolF = `"tools":[{"type":"function","function":{"name":"f"}}]`

// refusalTests are requests the adapter refuses: a KindBadRequest
// *provider.Error naming the field.
var refusalTests = []struct {
	name, body  string
	param, code string
}{
	{"not JSON", `{"messages":`, "", "invalid_value"},
	{"not an object", `[1]`, "", "invalid_value"},
	{"n", `{"n":2,` + hello + `}`, "n", "unsupported_parameter"},
	{"logprobs", `{"logprobs":true,` + hello + `}`, "logprobs", "unsupported_parameter"},
	{"audio", `{"audio":{"voice":"alloy","format":"wav"},` + hello + `}`, "audio", "unsupported_parameter"},
	{"modalities", `{"modalities":["text","audio"],` + hello + `}`, "modalities", "unsupported_parameter"},
	{"no messages", `{}`, "messages", "invalid_value"},
	{"empty messages", `{"messages":[]}`, "messages", "invalid_value"},
	{"bad role", `{"messages":[{"role":"robot","content":"x"}]}`, "messages[0].role", "invalid_value"},
	{"bad content", `{"messages":[{"role":"user","content":5}]}`, "messages[0].content", "invalid_value"},
	{"input_audio", `{"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}}]}]}`, "messages[0].content[0].type", "unsupported_parameter"},
	{"file_id", `{"messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}`, "messages[0].content[0].file.file_id", "unsupported_parameter"},
	{"not a PDF", `{"messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:text/csv;base64,YQ=="}}]}]}`, "messages[0].content[0].file.file_data", "unsupported_parameter"},
	{"bmp image", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/bmp;base64,Qk0="}}]}]}`, "messages[0].content[0].image_url.url", "unsupported_parameter"},
	{"ftp image", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"ftp://x/a.png"}}]}]}`, "messages[0].content[0].image_url.url", "invalid_value"},
	{"custom tool", `{"tools":[{"type":"custom","custom":{"name":"c"}}],` + hello + `}`, "tools[0].type", "unsupported_parameter"},
	{"duplicate tool", `{"tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"f"}}],` + hello + `}`, "tools[1].function.name", "invalid_value"},
	{"bad tool name", `{"tools":[{"type":"function","function":{"name":"a b"}}],` + hello + `}`, "tools[0].function.name", "invalid_value"},
	{"non-object schema", `{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"string"}}}],` + hello + `}`, "tools[0].function.parameters.type", "invalid_value"},
	{"unknown named tool", `{"tool_choice":{"type":"function","function":{"name":"g"}},` + toolF + `,` + hello + `}`, "tool_choice", "invalid_value"},
	{"orphan tool result", `{"messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"x","content":"1"}],` + toolF + `}`, "messages[1].tool_call_id", "invalid_value"},
	{"result of an older turn", `{"messages":[{"role":"user","content":"q"},` + callF("a") + `,{"role":"tool","tool_call_id":"a","content":"1"},{"role":"assistant","content":"ok"},{"role":"tool","tool_call_id":"a","content":"1"}],` + toolF + `}`, "messages[4].tool_call_id", "invalid_value"},
	{"unanswered call", `{"messages":[{"role":"user","content":"q"},` + callF("a") + `,{"role":"user","content":"and?"}],` + toolF + `}`, "messages", "invalid_value"},
	{"unanswered at the end", `{"messages":[{"role":"user","content":"q"},` + callF("a") + `],` + toolF + `}`, "messages", "invalid_value"},
	{"two results", `{"messages":[{"role":"user","content":"q"},` + callF("a") + `,{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"a","content":"2"}],` + toolF + `}`, "messages[3].tool_call_id", "invalid_value"},
	{"duplicate call id", `{"messages":[{"role":"user","content":"q"},` + callF("a") + `,` + callF("a") + `],` + toolF + `}`, "messages[2].tool_calls[0].id", "invalid_value"},
	{"orphan function result", `{"messages":[{"role":"user","content":"q"},{"role":"function","name":"f","content":"1"}],"functions":[{"name":"f"}]}`, "messages[1].name", "invalid_value"},
}

// TestTranslateRefusals checks what the adapter refuses rather than send.
func TestTranslateRefusals(t *testing.T) {
	for _, tt := range refusalTests {
		t.Run(tt.name, func(t *testing.T) {
			r := &provider.Request{Model: "m", UpstreamModel: "claude-fake-1", Body: []byte(tt.body)}
			got, _, err := translateRequest(r, false)
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, body %s; want a *provider.Error", err, got)
			}
			if pe.Kind != provider.KindBadRequest || pe.Param != tt.param || pe.Code != tt.code || pe.Message == "" {
				t.Errorf("got %s; want kind bad_request, param %q, code %q", describe(err), tt.param, tt.code)
			}
		})
	}
}

func TestSanitizeID(t *testing.T) {
	long := "call_" + string(make([]byte, 70))
	tests := []struct{ in, want string }{
		{"call_abc-DEF_123", "call_abc-DEF_123"},
		{"functions.get_weather:0", "functions_get_weather_0_9lkr65"},
		{"functions.get_weather_0", "functions_get_weather_0_1cin9c"},
		{"", "_ztntfp"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := sanitizeID(tt.in)
			if got != tt.want || !validID(got) || sanitizeID(tt.in) != got {
				t.Errorf("sanitizeID(%q) = %q, want %q (valid and stable)", tt.in, got, tt.want)
			}
		})
	}
	if got := sanitizeID(long); !validID(got) || len(got) > maxIDLen {
		t.Errorf("sanitizeID(long) = %q", got)
	}
}
