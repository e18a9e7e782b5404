package gateway

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Issue 13: a prompt larger than the model's context window went to the
// upstream (and, cut, to the tokenizer). It is refused with OpenAI's 400
// when its lower bound of tokens exceeds the window (the message is api's).
func TestCheckWindow(t *testing.T) {
	const window = 100
	text := func(n int) string { return strings.Repeat("x", n) }
	chat := func(contents ...any) string {
		var msgs []map[string]any
		for _, c := range contents {
			msgs = append(msgs, map[string]any{"role": "user", "content": c})
		}
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
		return string(b)
	}
	ids := func(n int) []int { return make([]int, n) }
	input := func(key string, v any) string {
		b, _ := json.Marshal(map[string]any{"model": "m", key: v})
		return string(b)
	}
	fits := window * maxBytesPerToken
	tests := []struct {
		name      string
		endpoint  provider.Endpoint
		body      string
		wantParam string // "" when the request fits
		wantN     int
	}{
		{"chat fits", provider.EndpointChat, chat(text(fits)), "", 0},
		{"chat over", provider.EndpointChat, chat(text(fits + 1)), "messages", 101},
		{"chat over across messages", provider.EndpointChat, chat(text(fits), "y"), "messages", 101},
		{"chat text parts", provider.EndpointChat, chat([]map[string]string{{"type": "text", "text": text(fits + 1)}}), "messages", 101},
		{"chat image url is no text", provider.EndpointChat,
			chat([]map[string]any{{"type": "image_url", "image_url": map[string]string{"url": "data:image/png;base64," + text(2*fits)}}}), "", 0},
		{"prompt fits", provider.EndpointCompletion, input("prompt", text(fits)), "", 0},
		{"prompt over", provider.EndpointCompletion, input("prompt", text(fits+1)), "prompt", 101},
		{"prompts each fit", provider.EndpointCompletion, input("prompt", []string{text(fits), text(fits)}), "", 0},
		{"one prompt over", provider.EndpointCompletion, input("prompt", []string{"a", text(fits + 1)}), "prompt", 101},
		{"token prompt fits", provider.EndpointCompletion, input("prompt", ids(window)), "", 0},
		{"token prompt over", provider.EndpointCompletion, input("prompt", ids(window+1)), "prompt", 101},
		{"token prompts over", provider.EndpointCompletion, input("prompt", [][]int{ids(1), ids(window + 5)}), "prompt", 105},
		{"embedding input over", provider.EndpointEmbedding, input("input", []string{text(fits + 1)}), "input", 101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkWindow(tt.endpoint, []byte(tt.body), &catalog.Model{ID: "m", ContextWindow: window})
			if tt.wantParam == "" {
				if err != nil {
					t.Fatalf("refused a request that fits: %v", err)
				}
				return
			}
			var got *ContextTooLong
			if !errors.As(err, &got) {
				t.Fatalf("accepted a request over the window: %v", err)
			}
			if diff := cmp.Diff(&ContextTooLong{Param: tt.wantParam, Window: window, Tokens: tt.wantN}, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	if err := checkWindow(provider.EndpointChat, []byte(chat(text(10*fits))), &catalog.Model{ID: "m"}); err != nil {
		t.Errorf("a model with no known window refused: %v", err)
	}
}

// TestTextBytes measures texts in place (issue 18) exactly as gjson's
// unescaped copies measured them: contents, parts, tool-call arguments,
// escapes, and the shapes that hold no text.
func TestTextBytes(t *testing.T) {
	// copied is the count from gjson's copies, as it was done before.
	copied := func(msgs gjson.Result) int {
		b := 0
		msgs.ForEach(func(_, m gjson.Result) bool {
			content := m.Get("content")
			if content.Type == gjson.String {
				b += len(content.Str)
			}
			content.ForEach(func(_, part gjson.Result) bool {
				b += len(part.Get("text").Str)
				return true
			})
			m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				b += len(tc.Get("function.arguments").Str)
				return true
			})
			return true
		})
		return b
	}
	long := strings.Repeat(`line \"one\"\n\u00e9\ud83d\ude00 `, 40)
	for _, msgs := range []string{
		`[{"role":"user","content":"` + long + `"}]`,
		`[{"role":"user","content":[{"type":"text","text":"` + long + `"},{"type":"image_url","image_url":{"url":"x"}},"bare",7]}]`,
		`[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":\"` + long + `\"}"}},{"function":{"arguments":5}},"x"]}]`,
		`[{"role":"user","content":{"text":"` + long + `"}},{"role":"user"},{"role":"user","content":7},"not a message",[1]]`,
		`[{"r\u006fle":"user","c\u006fntent":"` + long + `"},{"content":"a","content":"bb"}]`,
		`[{"role":"tool","content":"x","tool_calls":{"a":{"function":{"arguments":"` + long + `"}}}}]`,
	} {
		m := gjson.Parse(msgs)
		if got, want := textBytes(m), copied(m); got != want {
			t.Errorf("%.60s…: textBytes = %d, want %d", msgs, got, want)
		}
	}
	m := gjson.Parse(`[{"role":"user","content":"` + long + `"},{"role":"user","content":[{"type":"text","text":"` + long + `"}]}]`)
	if n := testing.AllocsPerRun(50, func() { textBytes(m) }); n != 0 {
		t.Errorf("textBytes: %v allocations, want none", n)
	}
}

// TestWindowBound checks the bound by which checkWindow passes a body
// without walking it (issue 18): no input counts more tokens than
// atMost gives for its body's length, the densest texts, escapes and
// token IDs included.
func TestWindowBound(t *testing.T) {
	dense := strings.Repeat("x", 10*maxBytesPerToken)
	escaped := strings.Repeat(`\ud83d\ude00\u00e9\ud800\n`, 100)
	ids := "[" + strings.Repeat("0,", 999) + "0]"
	tests := []struct {
		endpoint provider.Endpoint
		body     string
	}{
		{provider.EndpointChat, `{"messages":[{"role":"user","content":"` + dense + `"}]}`},
		{provider.EndpointChat, `{"messages":[{"role":"user","content":"` + escaped + `"}]}`},
		{provider.EndpointChat, `{"messages":[{"content":[{"text":"` + dense + `"}],"tool_calls":[{"function":{"arguments":"` + dense + `"}}]}]}`},
		{provider.EndpointMessages, `{"messages":[{"content":"` + dense + dense + `"}]}`},
		{provider.EndpointCompletion, `{"prompt":"` + dense + `"}`},
		{provider.EndpointCompletion, `{"prompt":` + ids + `}`},
		{provider.EndpointCompletion, `{"prompt":[` + ids + `,[0]]}`},
		{provider.EndpointEmbedding, `{"input":` + ids + `}`},
		{provider.EndpointEmbedding, `{"input":["` + escaped + `"]}`},
	}
	for _, tt := range tests {
		_, n := inputTokens(tt.endpoint, []byte(tt.body))
		if n == 0 {
			t.Fatalf("%s %.40s…: counted nothing", tt.endpoint, tt.body)
		}
		if bound := atMost(tt.endpoint, len(tt.body)); n > bound {
			t.Errorf("%s %.40s…: %d tokens, over the bound %d", tt.endpoint, tt.body, n, bound)
		}
		m := &catalog.Model{ID: "m", ContextWindow: n - 1}
		if err := checkWindow(tt.endpoint, []byte(tt.body), m); err == nil {
			t.Errorf("%s %.40s…: %d tokens passed a window of %d", tt.endpoint, tt.body, n, n-1)
		}
	}
}
