package fakeopenai

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// events splits an SSE body into its data payloads, failing on anything
// but OpenAI's framing: "data: <one line>\n\n" per event.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	text := string(body)
	if !strings.HasSuffix(text, "\n\n") {
		t.Fatalf("stream does not end with a blank line: %q", text)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(text, "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("bad event %q", ev)
		}
		out = append(out, data)
	}
	return out
}

// stream posts body and returns its events, checking the stream headers.
func stream(t *testing.T, s *Server, path, body string) []string {
	t.Helper()
	r := post(t, s, path, body)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" || r.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("headers %v", r.header)
	}
	return events(t, r.body)
}

// summary reduces chunks to what the framing rules are about.
type summary struct {
	text     map[int]string // content per choice
	args     map[int]string // tool call arguments per call index
	finish   map[int]string
	usage    int64 // total_tokens of the usage chunk
	done     bool
	allUsage bool // every chunk has a "usage" key
	noUsage  bool // no chunk has a "usage" key
}

func summarize(t *testing.T, evs []string) summary {
	t.Helper()
	s := summary{text: map[int]string{}, args: map[int]string{}, finish: map[int]string{}, allUsage: true, noUsage: true}
	for i, ev := range evs {
		if ev == "[DONE]" {
			if i != len(evs)-1 {
				t.Errorf("[DONE] is not last")
			}
			s.done = true
			continue
		}
		c := gjson.Parse(ev)
		s.allUsage = s.allUsage && c.Get("usage").Exists()
		s.noUsage = s.noUsage && !c.Get("usage").Exists()
		if u := c.Get("usage.total_tokens"); u.Exists() {
			s.usage = u.Int()
			if len(c.Get("choices").Array()) != 0 {
				t.Errorf("usage chunk has choices: %s", ev)
			}
		}
		for _, ch := range c.Get("choices").Array() {
			idx := int(ch.Get("index").Int())
			s.text[idx] += ch.Get("delta.content").Str + ch.Get("text").Str
			for _, tc := range ch.Get("delta.tool_calls").Array() {
				s.args[int(tc.Get("index").Int())] += tc.Get("function.arguments").Str
			}
			s.args[-1] += ch.Get("delta.function_call.arguments").Str
			if f := ch.Get("finish_reason"); f.Str != "" {
				s.finish[idx] = f.Str
			}
		}
	}
	return s
}

func TestStreamText(t *testing.T) {
	s := start(t, Options{Words: 4})
	evs := stream(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Stream please"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if len(evs) != 1+4+1+1+1 {
		t.Fatalf("%d events: %q", len(evs), evs)
	}
	first := gjson.Parse(evs[0])
	if first.Get("object").Str != "chat.completion.chunk" || first.Get("choices.0.delta").Raw != `{"role":"assistant","content":"","refusal":null}` {
		t.Errorf("role chunk %s", evs[0])
	}
	if got := gjson.Get(evs[2], "choices.0.delta").Raw; got != `{"content":" said:"}` {
		t.Errorf("second word delta %s", got)
	}
	if got := gjson.Get(evs[5], "choices.0").Raw; got != `{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}` {
		t.Errorf("finish chunk %s", got)
	}
	id := first.Get("id").Str
	for _, ev := range evs[:len(evs)-1] {
		if gjson.Get(ev, "id").Str != id {
			t.Errorf("id changes: %s", ev)
		}
	}
	got := summarize(t, evs)
	want := summary{text: map[int]string{0: "You said: Stream please"}, args: map[int]string{-1: ""}, finish: map[int]string{0: "stop"}, usage: 9, done: true, allUsage: true}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(summary{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStreamUsageVariants(t *testing.T) {
	body := func(usage bool) string {
		opts := ""
		if usage {
			opts = `,"stream_options":{"include_usage":true}`
		}
		return `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true` + opts + `}`
	}
	tests := []struct {
		name       string
		opt        Options
		usage      bool
		wantUsage  int64
		wantNoKeys bool
		wantGroq   bool
	}{
		{"no include_usage", Options{}, false, 0, true, false},
		{"include_usage", Options{}, true, 16, false, false},
		{"NoStreamUsage", Options{NoStreamUsage: true}, true, 0, true, false},
		{"GroqUsage", Options{GroqUsage: true}, true, 0, true, true},
		{"GroqUsage without asking", Options{GroqUsage: true}, false, 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := stream(t, start(t, tt.opt), "/chat/completions", body(tt.usage))
			got := summarize(t, evs)
			if got.usage != tt.wantUsage || got.noUsage != tt.wantNoKeys || !got.done {
				t.Errorf("usage %d noUsage %v done %v", got.usage, got.noUsage, got.done)
			}
			groq := gjson.Get(evs[len(evs)-2], "x_groq.usage.total_tokens").Int()
			if tt.wantGroq != (groq == 16) {
				t.Errorf("x_groq usage = %d in %s", groq, evs[len(evs)-2])
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	s := start(t, Options{})
	two := weatherTool + `,{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"tz":{"type":"string","enum":["UTC","CET"]},"n":{"type":["integer","null"]},"x":{"type":"boolean"}},"required":["tz","n","x"]}}}`
	evs := stream(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Weather?"}],"stream":true,"tools":[`+two+`]}`)
	first := gjson.Parse(evs[0]).Get("choices.0.delta")
	if first.Get("role").Str != "assistant" || first.Get("content").Type != gjson.Null || first.Get("tool_calls.0.function.name").Str != "get_weather" || first.Get("tool_calls.0.function.arguments").Str != "" {
		t.Errorf("first delta %s", first.Raw)
	}
	heads, fragments := map[int]int{}, map[int]int{}
	for _, ev := range evs {
		for _, tc := range gjson.Get(ev, "choices.0.delta.tool_calls").Array() {
			i := int(tc.Get("index").Int())
			if tc.Get("id").Exists() {
				heads[i]++
				if tc.Get("type").Str != "function" || !tc.Get("function.name").Exists() {
					t.Errorf("head fragment %s", tc.Raw)
				}
			} else {
				fragments[i]++
				if tc.Get("type").Exists() || tc.Get("function.name").Exists() {
					t.Errorf("later fragment has id/type/name: %s", tc.Raw)
				}
			}
		}
	}
	if heads[0] != 1 || heads[1] != 1 || fragments[0] < 2 || fragments[1] < 2 {
		t.Errorf("heads %v fragments %v", heads, fragments)
	}
	got := summarize(t, evs)
	want := map[int]string{-1: "", 0: `{"location":"Paris"}`, 1: `{"tz":"UTC","n":1,"x":null}`}
	if diff := cmp.Diff(want, got.args); diff != "" || got.finish[0] != "tool_calls" {
		t.Errorf("args (-want +got):\n%s finish %v", diff, got.finish)
	}
}

func TestStreamLegacyFunction(t *testing.T) {
	s := start(t, Options{})
	evs := stream(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Weather?"}],"stream":true,"functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`)
	if got := gjson.Get(evs[0], "choices.0.delta").Raw; got != `{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":""},"refusal":null}` {
		t.Errorf("first delta %s", got)
	}
	got := summarize(t, evs)
	if got.args[-1] != `{"location":"Paris"}` || got.finish[0] != "function_call" || len(evs) < 5 {
		t.Errorf("args %q finish %v events %d", got.args[-1], got.finish, len(evs))
	}
}

func TestStreamN(t *testing.T) {
	s := start(t, Options{Words: 3})
	evs := stream(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"stream":true,"n":2}`)
	var order []int64
	for _, ev := range evs[:len(evs)-1] {
		order = append(order, gjson.Get(ev, "choices.0.index").Int())
	}
	if diff := cmp.Diff([]int64{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, order); diff != "" {
		t.Errorf("choice order (-want +got):\n%s", diff)
	}
	got := summarize(t, evs)
	if got.text[0] != "You said: x" || got.text[1] != "You said: x" || got.finish[1] != "stop" {
		t.Errorf("%+v", got)
	}
}

func TestStreamCompletions(t *testing.T) {
	s := start(t, Options{Words: 5})
	evs := stream(t, s, "/completions", `{"model":"gpt-3.5-turbo-instruct","prompt":["a","b"],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`)
	for _, ev := range evs[:len(evs)-1] {
		if gjson.Get(ev, "object").Str != "text_completion" || !gjson.Get(ev, "usage").Exists() {
			t.Errorf("chunk %s", ev)
		}
	}
	got := summarize(t, evs)
	if got.text[0] != "You said: a" || got.text[1] != "You said: b" || got.finish[0] != "length" || got.usage != 2+6 {
		t.Errorf("%+v", got)
	}
	if c := gjson.Get(evs[0], "choices.0").Raw; c != `{"text":"You","index":0,"logprobs":null,"finish_reason":null}` {
		t.Errorf("first choice %s", c)
	}
}

func TestStreamTokenDelayAndDisconnect(t *testing.T) {
	s := start(t, Options{Words: 5, TokenDelay: 40 * time.Millisecond})
	begin := time.Now()
	stream(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"stream":true}`)
	if d := time.Since(begin); d < 6*40*time.Millisecond {
		t.Errorf("7 chunks took %v", d)
	}

	slow := start(t, Options{Words: 1000, TokenDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", slow.URL+"/chat/completions", strings.NewReader(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"stream":true}`))
	req.Header.Set("Authorization", "Bearer "+defaultKey)
	req.Header.Set("Content-Type", "application/json")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	resp.Body.Read(buf) // the role chunk is flushed at once
	cancel()
	resp.Body.Close()
	// The handler notices that the client left and ends.
	for deadline := time.Now().Add(2 * time.Second); slow.Active() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server still streaming after the client left")
		}
	}
}
