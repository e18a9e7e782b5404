package mock_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
)

// weather is a tool definition with required parameters of each type.
const weather = `{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},"metric":{"type":"boolean"}},"required":["location","days","metric"]}}`

// clock is a second function, to check forced choices pick it.
const clock = `{"name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}}`

func request(model, body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointChat, Model: model, UpstreamModel: model, Body: []byte(body)}
}

// decode unmarshals JSON, failing the test on invalid input.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return m
}

// stable drops what changes between calls: the ID, the time and tool-call
// IDs.
func stable(t *testing.T, b []byte) map[string]any {
	m := decode(t, b)
	delete(m, "id")
	delete(m, "created")
	for _, ch := range m["choices"].([]any) {
		msg, _ := ch.(map[string]any)["message"].(map[string]any)
		for _, tc := range asSlice(msg["tool_calls"]) {
			delete(tc.(map[string]any), "id")
		}
	}
	return m
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func TestProvider(t *testing.T) {
	p := mock.New("mock-a")
	if p.Name() != "mock-a" || p.Type() != "mock" {
		t.Errorf("Name, Type = %q, %q; want mock-a, mock", p.Name(), p.Type())
	}
}

func TestChat(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		choices   int
		content   string
		finish    string
		promptTok int
		complTok  int
	}{
		{"answer", `{"model":"mock-chat","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hello"}]}`,
			1, "This is the Switchyard mock model answering: Say hello", "stop", 3 + 2 + 3 + 2, 9},
		{"last user message, parts", `{"model":"mock-chat","messages":[{"role":"user","content":"first"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"second"},{"type":"image_url","image_url":{"url":"data:,"}},{"type":"text","text":"turn"}]}]}`,
			1, "This is the Switchyard mock model answering: second turn", "stop", 0, 9},
		{"n choices", `{"model":"mock-chat","n":3,"messages":[{"role":"user","content":"hi"}]}`,
			3, "This is the Switchyard mock model answering: hi", "stop", 4, 8},
		{"max_tokens cuts the answer", `{"model":"mock-chat","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}`,
			1, "This is the Switchyard", "length", 4, 4},
		{"max_completion_tokens wins", `{"model":"mock-chat","max_tokens":100,"max_completion_tokens":2,"messages":[{"role":"user","content":"hi"}]}`,
			1, "This is", "length", 4, 2},
		{"max_tokens above the answer", `{"model":"mock-chat","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`,
			1, "This is the Switchyard mock model answering: hi", "stop", 4, 8},
		{"long prompt capped at 24 words", `{"model":"mock-chat","messages":[{"role":"user","content":"a b c d e f g h i j k l m n o p q r s t u v w x y z"}]}`,
			1, "This is the Switchyard mock model answering: a b c d e f g h i j k l m n o p q", "stop", 3 + 26, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mock.New("mock")
			resp, err := p.Chat(context.Background(), request("mock-chat", tt.body))
			if err != nil {
				t.Fatal(err)
			}
			r := gjson.ParseBytes(resp.Body)
			if r.Get("object").Str != "chat.completion" || r.Get("model").Str != "mock-chat" || r.Get("id").Str == "" {
				t.Errorf("head of %s", resp.Body)
			}
			choices := r.Get("choices").Array()
			if len(choices) != tt.choices {
				t.Fatalf("%d choices, want %d", len(choices), tt.choices)
			}
			for i, ch := range choices {
				got := []any{ch.Get("index").Int(), ch.Get("message.role").Str, ch.Get("message.content").Str, ch.Get("finish_reason").Str}
				want := []any{int64(i), "assistant", tt.content, tt.finish}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("choice %d (-want +got):\n%s", i, diff)
				}
			}
			if tt.promptTok != 0 && resp.Usage.PromptTokens != tt.promptTok {
				t.Errorf("prompt tokens %d, want %d", resp.Usage.PromptTokens, tt.promptTok)
			}
			if tt.choices == 1 && resp.Usage.CompletionTokens != tt.complTok {
				t.Errorf("completion tokens %d, want %d", resp.Usage.CompletionTokens, tt.complTok)
			}
			u := resp.Usage
			if u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.Estimated {
				t.Errorf("usage %+v inconsistent", u)
			}
			body := r.Get("usage")
			if got := (provider.Usage{PromptTokens: int(body.Get("prompt_tokens").Int()), CompletionTokens: int(body.Get("completion_tokens").Int()),
				TotalTokens: int(body.Get("total_tokens").Int())}); got != u {
				t.Errorf("usage in the body %+v, Usage %+v", got, u)
			}
		})
	}
}

func TestChatDeterministic(t *testing.T) {
	body := `{"model":"mock-chat","n":2,"messages":[{"role":"user","content":"Tell me about Paris"}],"tools":[{"type":"function","function":` + weather + `}]}`
	for _, b := range []string{body, `{"model":"mock-chat","messages":[{"role":"user","content":"Tell me about Paris"}]}`} {
		a, err := mock.New("a").Chat(context.Background(), request("mock-chat", b))
		if err != nil {
			t.Fatal(err)
		}
		p := mock.New("b")
		p.Chat(context.Background(), request("mock-chat", `{"messages":[{"role":"user","content":"other"}]}`))
		c, err := p.Chat(context.Background(), request("mock-chat", b))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(stable(t, a.Body), stable(t, c.Body)); diff != "" {
			t.Errorf("two answers to %s differ (-first +second):\n%s", b, diff)
		}
		if a.Usage != c.Usage {
			t.Errorf("usage %+v, then %+v", a.Usage, c.Usage)
		}
	}
}

// A choice's tokens all count: with n choices the completion tokens are n
// times one answer's, as OpenAI reports them.
func TestChatUsageCountsEveryChoice(t *testing.T) {
	p := mock.New("mock")
	one, _ := p.Chat(context.Background(), request("mock-chat", `{"messages":[{"role":"user","content":"hi"}]}`))
	three, _ := p.Chat(context.Background(), request("mock-chat", `{"n":3,"messages":[{"role":"user","content":"hi"}]}`))
	if got, want := three.Usage.CompletionTokens, 3*one.Usage.CompletionTokens; got != want {
		t.Errorf("n=3 completion tokens %d, want %d", got, want)
	}
}

func TestChatFunctions(t *testing.T) {
	const user = `"messages":[{"role":"user","content":"Weather in Paris?"}]`
	const args = `{"days":1,"location":"Paris","metric":true}`
	tests := []struct {
		name   string
		body   string
		finish string
		call   string // "name args" of the call; "" = text answer
		legacy bool
	}{
		{"tools", `{` + user + `,"tools":[{"type":"function","function":` + weather + `},{"type":"function","function":` + clock + `}]}`,
			"tool_calls", "get_weather " + args, false},
		{"tools, auto", `{` + user + `,"tool_choice":"auto","tools":[{"type":"function","function":` + weather + `}]}`,
			"tool_calls", "get_weather " + args, false},
		{"tools, required", `{` + user + `,"tool_choice":"required","tools":[{"type":"function","function":` + weather + `}]}`,
			"tool_calls", "get_weather " + args, false},
		{"tools, none", `{` + user + `,"tool_choice":"none","tools":[{"type":"function","function":` + weather + `}]}`,
			"stop", "", false},
		{"tools, forced", `{` + user + `,"tool_choice":{"type":"function","function":{"name":"get_time"}},"tools":[{"type":"function","function":` + weather + `},{"type":"function","function":` + clock + `}]}`,
			"tool_calls", `get_time {"zone":"Paris"}`, false},
		{"functions", `{` + user + `,"functions":[` + weather + `,` + clock + `]}`,
			"function_call", "get_weather " + args, true},
		{"functions, none", `{` + user + `,"function_call":"none","functions":[` + weather + `]}`,
			"stop", "", true},
		{"functions, forced", `{` + user + `,"function_call":{"name":"get_time"},"functions":[` + weather + `,` + clock + `]}`,
			"function_call", `get_time {"zone":"Paris"}`, true},
		{"no parameters", `{` + user + `,"tools":[{"type":"function","function":{"name":"ping"}}]}`,
			"tool_calls", "ping {}", false},
		{"empty tools", `{` + user + `,"tools":[]}`, "stop", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := mock.New("mock").Chat(context.Background(), request("mock-chat", tt.body))
			if err != nil {
				t.Fatal(err)
			}
			ch := gjson.GetBytes(resp.Body, "choices.0")
			if got := ch.Get("finish_reason").Str; got != tt.finish {
				t.Errorf("finish_reason %q, want %q", got, tt.finish)
			}
			var call string
			if tt.legacy {
				call = ch.Get("message.function_call.name").Str + " " + ch.Get("message.function_call.arguments").Str
				if ch.Get("message.tool_calls").Exists() {
					t.Errorf("legacy request answered with tool_calls: %s", ch.Raw)
				}
			} else {
				tc := ch.Get("message.tool_calls.0")
				call = tc.Get("function.name").Str + " " + tc.Get("function.arguments").Str
				if tc.Exists() && (tc.Get("id").Str == "" || tc.Get("type").Str != "function") {
					t.Errorf("tool call without id or type: %s", tc.Raw)
				}
				if ch.Get("message.function_call").Exists() {
					t.Errorf("tools request answered with function_call: %s", ch.Raw)
				}
			}
			if call == " " {
				call = ""
			}
			if call != tt.call {
				t.Errorf("call %q, want %q", call, tt.call)
			}
			if content := ch.Get("message.content"); (tt.call != "") != (content.Type == gjson.Null) {
				t.Errorf("content %s with call %q", content.Raw, tt.call)
			}
		})
	}
}
