package mock_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider/mock"
)

// units is a tool whose arguments have an enum, a nested object, an
// array and a formatted string, all required.
const units = `{"name":"get_weather","parameters":{"type":"object","additionalProperties":false,
"properties":{"unit":{"type":"string","enum":["c","f"]},"city":{"type":"string","minLength":8},
"when":{"type":"string","format":"date-time"},"days":{"type":"integer","minimum":3,"maximum":5},
"place":{"type":"object","properties":{"lat":{"type":"number"},"name":{"type":["string","null"]}},"required":["lat","name"]},
"tags":{"type":"array","items":{"$ref":"#/$defs/tag"},"minItems":2},
"either":{"anyOf":[{"type":"null"},{"type":"boolean"}]},"fixed":{"const":"v1"}},
"required":["unit","city","when","days","place","tags","either","fixed"],
"$defs":{"tag":{"type":"string","enum":["x","y"]}}}}`

// checkUnits checks arguments made for the units tool against its schema.
func checkUnits(t *testing.T, args string) {
	t.Helper()
	a := gjson.Parse(args)
	checks := []struct {
		path string
		ok   bool
	}{
		{"unit", a.Get("unit").Str == "c" || a.Get("unit").Str == "f"},
		{"city", a.Get("city").Type == gjson.String && len(a.Get("city").Str) >= 8},
		{"when", strings.Contains(a.Get("when").Str, "T")},
		{"days", a.Get("days").Type == gjson.Number && a.Get("days").Int() >= 3 && a.Get("days").Int() <= 5 && !strings.Contains(a.Get("days").Raw, ".")},
		{"place.lat", a.Get("place.lat").Type == gjson.Number},
		{"place.name", a.Get("place.name").Type == gjson.String},
		{"tags", len(a.Get("tags").Array()) >= 2 && a.Get("tags.0").Str == "x"},
		{"either", a.Get("either").IsBool()},
		{"fixed", a.Get("fixed").Str == "v1"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s breaks the schema in %s", c.path, args)
		}
	}
}

// chatBody runs Chat on body and returns the response body.
func chatBody(t *testing.T, p *mock.Provider, body string) gjson.Result {
	t.Helper()
	resp, err := p.Chat(context.Background(), request("mock-chat", body))
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(resp.Body)
}

// streamChunks runs ChatStream on body and returns its chunks.
func streamChunks(t *testing.T, p *mock.Provider, body string) []gjson.Result {
	t.Helper()
	r := request("mock-chat", body)
	r.Stream = true
	st, err := p.ChatStream(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, st)
}

// streamedContent is the content of choice 0 of a stream of body.
func streamedContent(t *testing.T, p *mock.Provider, body string) string {
	t.Helper()
	var b strings.Builder
	for _, c := range streamChunks(t, p, body) {
		b.WriteString(c.Get("choices.0.delta.content").Str)
	}
	return b.String()
}

func TestToolArgumentsMatchSchema(t *testing.T) {
	body := `{"messages":[{"role":"user","content":"Weather?"}],"tools":[{"type":"function","function":` + units + `}]}`
	checkUnits(t, chatBody(t, mock.New("mock"), body).Get("choices.0.message.tool_calls.0.function.arguments").Str)
}

// An agent loop ends: the mock calls a tool only when the last message is
// the user's, and answers a tool result with text.
func TestChatAfterToolResult(t *testing.T) {
	tools := `"tools":[{"type":"function","function":` + weather + `}]`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	tests := []struct {
		name    string
		body    string
		finish  string
		content string
	}{
		{"tool result", `{` + tools + `,"messages":[{"role":"user","content":"Weather?"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"sunny 21C"}]}`,
			"stop", "This is the Switchyard mock model answering: sunny 21C"},
		{"tool result in parts", `{` + tools + `,"messages":[{"role":"user","content":"Weather?"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"sunny"}]}]}`,
			"stop", "This is the Switchyard mock model answering: sunny"},
		{"legacy function result", `{"functions":[` + weather + `],"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{}"}},{"role":"function","name":"get_weather","content":"rain"}]}`,
			"stop", "This is the Switchyard mock model answering: rain"},
		{"required still ends", `{"tool_choice":"required",` + tools + `,"messages":[{"role":"user","content":"Weather?"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"fog"}]}`,
			"stop", "This is the Switchyard mock model answering: fog"},
		{"user again calls again", `{` + tools + `,"messages":[{"role":"user","content":"Weather?"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"fog"},{"role":"assistant","content":"Fog."},{"role":"user","content":"And tomorrow?"}]}`,
			"tool_calls", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := chatBody(t, mock.New("mock"), tt.body).Get("choices.0")
			if got := ch.Get("finish_reason").Str; got != tt.finish {
				t.Errorf("finish_reason %q, want %q: %s", got, tt.finish, ch.Raw)
			}
			if got := ch.Get("message.content").Str; got != tt.content {
				t.Errorf("content %q, want %q", got, tt.content)
			}
			if tt.finish == "stop" && (ch.Get("message.tool_calls").Exists() || ch.Get("message.function_call").Exists()) {
				t.Errorf("a call after the tool result: %s", ch.Raw)
			}
		})
	}
}

func TestResponseFormat(t *testing.T) {
	schema := gjson.Get(units, "parameters").Raw
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, content string)
	}{
		{"json_schema", `{"response_format":{"type":"json_schema","json_schema":{"name":"w","strict":true,"schema":` + schema + `}},"messages":[{"role":"user","content":"Weather?"}]}`,
			checkUnits},
		{"json_object", `{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"Reply in JSON"}]}`,
			func(t *testing.T, content string) {
				var m map[string]any
				if err := json.Unmarshal([]byte(content), &m); err != nil {
					t.Errorf("content %q is not a JSON object: %v", content, err)
				}
			}},
		{"text", `{"response_format":{"type":"text"},"messages":[{"role":"user","content":"hi"}]}`,
			func(t *testing.T, content string) {
				if content != "This is the Switchyard mock model answering: hi" {
					t.Errorf("content %q", content)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mock.New("mock")
			ch := chatBody(t, p, tt.body).Get("choices.0")
			if got := ch.Get("finish_reason").Str; got != "stop" {
				t.Errorf("finish_reason %q", got)
			}
			tt.check(t, ch.Get("message.content").Str)
			tt.check(t, streamedContent(t, p, tt.body))
		})
	}
}
