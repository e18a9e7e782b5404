package openai_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

// indent pretty-prints JSON for a readable golden file.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return append(out.Bytes(), '\n')
}

// functionsRequest sends body through a translating client and returns
// what the upstream received and what the client got back.
func functionsRequest(t *testing.T, body []byte, answer string, translate bool) (upstream, resp []byte) {
	t.Helper()
	u := replay(t, answer)
	c := newClient(t, u.URL, openai.Options{TranslateFunctions: translate})
	r, err := c.Chat(testContext(t), &provider.Request{Model: "llama-3.3-70b-instruct", UpstreamModel: "llama-3.3-70b-instruct", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return u.last(t).Body, r.Body
}

func TestFunctionsToTools(t *testing.T) {
	upstream, resp := functionsRequest(t, readFixture(t, "openai/chat_request_legacy_functions.json"), "openai/chat_response_tool_calls.json", true)
	golden(t, "functions_request", indent(t, upstream))
	golden(t, "functions_response", indent(t, resp))

	for _, key := range []string{"functions", "function_call", "messages.#.function_call", "messages.#(role==function)"} {
		if v := gjson.GetBytes(upstream, key); v.Exists() && v.Raw != "[]" {
			t.Errorf("upstream body still has %s: %s", key, v.Raw)
		}
	}
	// The function's answer is a tool message answering the call.
	msgs := gjson.GetBytes(upstream, "messages").Array()
	if id := msgs[1].Get("tool_calls.0.id").Str; id == "" || msgs[2].Get("tool_call_id").Str != id || msgs[2].Get("role").Str != "tool" {
		t.Errorf("history not paired: call %s, result %s", msgs[1].Raw, msgs[2].Raw)
	}
	// The answer is a legacy function call again.
	ch := gjson.GetBytes(resp, "choices.0")
	want := map[string]any{
		"finish_reason": "function_call",
		"function_call": map[string]any{"name": "get_weather", "arguments": `{"location": "Paris, FR"}`},
		"tool_calls":    nil,
	}
	got := map[string]any{
		"finish_reason": ch.Get("finish_reason").Value(),
		"function_call": ch.Get("message.function_call").Value(),
		"tool_calls":    ch.Get("message.tool_calls").Value(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

func TestFunctionChoice(t *testing.T) {
	base := readFixture(t, "openai/chat_request_legacy_functions.json")
	tests := []struct {
		name         string
		functionCall string // raw JSON; "" = absent
		want         string // tool_choice raw JSON; "" = absent
	}{
		{"auto", `"auto"`, `"auto"`},
		{"none", `"none"`, `"none"`},
		{"named", `{"name":"get_weather"}`, `{"type":"function","function":{"name":"get_weather"}}`},
		{"absent", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := sjson.DeleteBytes(base, "function_call")
			if tt.functionCall != "" {
				body, _ = sjson.SetRawBytes(body, "function_call", []byte(tt.functionCall))
			}
			upstream, _ := functionsRequest(t, body, "openai/chat_response_basic.json", true)
			got := gjson.GetBytes(upstream, "tool_choice").Raw
			if got != tt.want {
				t.Errorf("tool_choice %s, want %s", got, tt.want)
			}
			if pc := gjson.GetBytes(upstream, "parallel_tool_calls"); pc.Type != gjson.False {
				t.Errorf("parallel_tool_calls %s, want false (one call per answer, as with functions)", pc.Raw)
			}
		})
	}
}

func TestFunctionsHistory(t *testing.T) {
	body := []byte(`{"model":"llama-3.3-70b-instruct","functions":[{"name":"get_weather","parameters":{"type":"object"}},{"name":"get_time","parameters":{"type":"object"}}],"messages":[
		{"role":"user","content":"Weather and time in Paris, then in Tokyo?"},
		{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
		{"role":"function","name":"get_weather","content":"18C"},
		{"role":"assistant","content":null,"function_call":{"name":"get_time","arguments":"{}"}},
		{"role":"function","name":"get_time","content":"10:00"},
		{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"}},
		{"role":"function","name":"get_weather","content":"25C"}]}`)
	upstream, _ := functionsRequest(t, body, "openai/chat_response_basic.json", true)
	msgs := gjson.GetBytes(upstream, "messages").Array()
	if len(msgs) != 7 {
		t.Fatalf("%d messages upstream, want 7: %s", len(msgs), upstream)
	}
	ids := map[string]bool{}
	for i := 1; i < len(msgs); i += 2 {
		call, result := msgs[i], msgs[i+1]
		id := call.Get("tool_calls.0.id").Str
		if id == "" || ids[id] {
			t.Errorf("message %d: call ID %q missing or reused", i, id)
		}
		ids[id] = true
		if result.Get("role").Str != "tool" || result.Get("tool_call_id").Str != id {
			t.Errorf("message %d answers %q, want a tool message answering %q", i+1, result.Get("tool_call_id").Str, id)
		}
		if want := gjson.GetBytes(body, "messages."+string(rune('0'+i))+".function_call.arguments").Str; call.Get("tool_calls.0.function.arguments").Str != want {
			t.Errorf("message %d arguments %s, want %s", i, call.Get("tool_calls.0.function.arguments").Raw, want)
		}
	}
}

func TestFunctionsUntouched(t *testing.T) {
	tests := []struct {
		name      string
		body      []byte
		translate bool
	}{
		{"translation off", readFixture(t, "openai/chat_request_legacy_functions.json"), false},
		{"tools request", []byte(`{"model":"llama-3.3-70b-instruct","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}]}`), true},
		{"plain request", []byte(`{"model":"llama-3.3-70b-instruct","messages":[{"role":"user","content":"hi"}]}`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upstream, resp := functionsRequest(t, tt.body, "openai/chat_response_tool_calls.json", tt.translate)
			if !bytes.Equal(upstream, tt.body) {
				t.Errorf("upstream body changed:\n got %s\nwant %s", upstream, tt.body)
			}
			if !gjson.GetBytes(resp, "choices.0.message.tool_calls").Exists() {
				t.Errorf("tool_calls answer translated for a request without functions: %s", resp)
			}
		})
	}
}

func TestFunctionsStream(t *testing.T) {
	body, _ := sjson.SetBytes(readFixture(t, "openai/chat_request_legacy_functions.json"), "stream", true)
	for _, includeUsage := range []bool{false, true} {
		name := "functions_stream_usage_false"
		if includeUsage {
			name = "functions_stream_usage_true"
		}
		t.Run(name, func(t *testing.T) {
			u := replay(t, "openai/chat_stream_tool_calls_include_usage.sse")
			c := newClient(t, u.URL, openai.Options{TranslateFunctions: true})
			st, err := c.ChatStream(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
				Body: body, Stream: true, IncludeUsage: includeUsage})
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := drain(t, st)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, append(bytes.Join(chunks, []byte("\n")), '\n'))
			if gjson.GetBytes(u.last(t).Body, "functions").Exists() || !gjson.GetBytes(u.last(t).Body, "tools").Exists() {
				t.Errorf("upstream stream request not translated: %s", u.last(t).Body)
			}
			checkChunks(t, chunks, "gpt-4o-mini-2024-07-18", includeUsage)

			var names, args strings.Builder
			var finish []string
			for _, ch := range chunks {
				if gjson.GetBytes(ch, "choices.#.delta.tool_calls").Raw != "[]" {
					t.Errorf("chunk forwards tool_calls: %s", ch)
				}
				names.WriteString(gjson.GetBytes(ch, "choices.0.delta.function_call.name").Str)
				args.WriteString(gjson.GetBytes(ch, "choices.0.delta.function_call.arguments").Str)
				if f := gjson.GetBytes(ch, "choices.0.finish_reason"); f.Type == gjson.String {
					finish = append(finish, f.Str)
				}
			}
			got := []string{names.String(), args.String(), strings.Join(finish, ",")}
			want := []string{"get_weather", `{"location": "Paris, FR"}`, "function_call"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("function call streamed (-want +got):\n%s", diff)
			}
		})
	}
}

// Hosts that only know tools answer in several shapes; a functions client
// always gets one function_call and finish_reason "function_call".
func TestFunctionAnswers(t *testing.T) {
	const call = `{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}`
	const fc = `{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}`
	tests := []struct {
		name   string
		choice string // the upstream's choice 0
		want   string // the client's choice 0
	}{
		{"tool_calls", `{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + call + `]},"finish_reason":"tool_calls"}`,
			`{"index":0,"message":{"role":"assistant","content":null,"function_call":` + fc + `},"finish_reason":"function_call"}`},
		{"stop with a tool call (host quirk)", `{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + call + `]},"finish_reason":"stop"}`,
			`{"index":0,"message":{"role":"assistant","content":null,"function_call":` + fc + `},"finish_reason":"function_call"}`},
		{"length with a tool call", `{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + call + `]},"finish_reason":"length"}`,
			`{"index":0,"message":{"role":"assistant","content":null,"function_call":` + fc + `},"finish_reason":"length"}`},
		{"text", `{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}`,
			`{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}`},
	}
	body := readFixture(t, "openai/chat_request_legacy_functions.json")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[` + tt.choice + `],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
			u := newUpstream(t, 200, map[string][]string{"Content-Type": {"application/json"}}, []byte(answer))
			c := newClient(t, u.URL, openai.Options{TranslateFunctions: true})
			r, err := c.Chat(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini", Body: body})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, []byte(gjson.GetBytes(r.Body, "choices.0").Raw))); diff != "" {
				t.Errorf("choice (-want +got):\n%s", diff)
			}
		})
	}
}

// The same quirk in a stream: the call and a "stop" finish arrive in
// different chunks.
func TestFunctionsStreamStopQuirk(t *testing.T) {
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":`
	stream := head + `[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},"finish_reason":null}]}` + "\n\n" +
		head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	u := newUpstream(t, 200, map[string][]string{"Content-Type": {"text/event-stream"}}, []byte(stream))
	c := newClient(t, u.URL, openai.Options{TranslateFunctions: true})
	body, _ := sjson.SetBytes(readFixture(t, "openai/chat_request_legacy_functions.json"), "stream", true)
	st, err := c.ChatStream(testContext(t), &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini", Body: body, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(chunks[len(chunks)-1], "choices.0.finish_reason").Str; got != "function_call" {
		t.Errorf("finish_reason %q, want function_call", got)
	}
}
