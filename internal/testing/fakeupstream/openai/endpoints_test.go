package fakeopenai

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

const timeTool = `{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]}}}`

func TestToolCalls(t *testing.T) {
	s := start(t, Options{})
	user := `[{"role":"user","content":"Weather?"}]`
	answered := `[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"sunny"}]`
	fn := `{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}`
	tests := []struct {
		name, messages, extra string
		want                  []string // names called; nil for a text answer
		finish                string
	}{
		{"auto", user, `,"tools":[` + weatherTool + `]`, []string{"get_weather"}, "tool_calls"},
		{"parallel", user, `,"tools":[` + weatherTool + `,` + timeTool + `]`, []string{"get_weather", "get_time"}, "tool_calls"},
		{"not parallel", user, `,"tools":[` + weatherTool + `,` + timeTool + `],"parallel_tool_calls":false`, []string{"get_weather"}, "tool_calls"},
		{"forced", user, `,"tools":[` + weatherTool + `,` + timeTool + `],"tool_choice":{"type":"function","function":{"name":"get_time"}}`, []string{"get_time"}, "tool_calls"},
		{"none", user, `,"tools":[` + weatherTool + `],"tool_choice":"none"`, nil, "stop"},
		{"allowed_tools", user, `,"tools":[` + weatherTool + `,` + timeTool + `],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"get_time"}}]}}`, []string{"get_time"}, "tool_calls"},
		{"after tool result", answered, `,"tools":[` + weatherTool + `]`, nil, "stop"},
		{"required after tool result", answered, `,"tools":[` + weatherTool + `],"tool_choice":"required"`, []string{"get_weather"}, "tool_calls"},
		{"functions", user, `,"functions":[` + fn + `]`, []string{"get_weather"}, "function_call"},
		{"functions forced", user, `,"functions":[` + fn + `],"function_call":{"name":"get_weather"}`, []string{"get_weather"}, "function_call"},
		{"functions none", user, `,"functions":[` + fn + `],"function_call":"none"`, nil, "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wantOK(t, post(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":`+tt.messages+tt.extra+`}`))
			msg := got.Get("choices.0.message")
			if f := got.Get("choices.0.finish_reason").Str; f != tt.finish {
				t.Errorf("finish_reason %q", f)
			}
			var names []string
			for _, tc := range msg.Get("tool_calls").Array() {
				names = append(names, tc.Get("function.name").Str)
				if !strings.HasPrefix(tc.Get("id").Str, "call_") || tc.Get("type").Str != "function" || !gjson.Valid(tc.Get("function.arguments").Str) {
					t.Errorf("tool call %s", tc.Raw)
				}
			}
			if fc := msg.Get("function_call"); fc.Exists() {
				names = append(names, fc.Get("name").Str)
				if fc.Get("arguments").Str != `{"location":"Paris"}` {
					t.Errorf("function_call %s", fc.Raw)
				}
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tt.want != nil && msg.Get("content").Type != gjson.Null {
				t.Errorf("content with calls: %s", msg.Raw)
			}
			if tt.want == nil && msg.Get("content").Str == "" {
				t.Errorf("no text: %s", msg.Raw)
			}
		})
	}
}

func TestToolCallIDsDistinct(t *testing.T) {
	s := start(t, Options{})
	got := wantOK(t, post(t, s, "/chat/completions", `{"model":"gpt-4o-mini","n":2,"messages":[{"role":"user","content":"x"}],"tools":[`+weatherTool+`,`+timeTool+`]}`))
	ids := map[string]bool{}
	for _, id := range got.Get("choices.#.message.tool_calls.#.id|@flatten").Array() {
		ids[id.Str] = true
	}
	if len(ids) != 4 {
		t.Errorf("ids %v", ids)
	}
	if args := got.Get("choices.0.message.tool_calls.0.function.arguments").Str; args != `{"location":"Paris"}` {
		t.Errorf("arguments %s", args)
	}
}

func TestTriggers(t *testing.T) {
	s := start(t, Options{})
	chat := func(text string) string {
		return `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + text + `"}]}`
	}
	tests := []struct {
		name, path, body string
		status           int
		typ, code        string
	}{
		{"400", "/chat/completions", chat("please fake:error:400 now"), 400, "invalid_request_error", "context_length_exceeded"},
		{"401", "/chat/completions", chat("fake:error:401"), 401, "invalid_request_error", "invalid_api_key"},
		{"403", "/chat/completions", chat("fake:error:403"), 403, "request_forbidden", "unsupported_country_region_territory"},
		{"404", "/chat/completions", chat("fake:error:404"), 404, "invalid_request_error", "model_not_found"},
		{"429", "/chat/completions", chat("fake:error:429."), 429, "tokens", "rate_limit_exceeded"},
		{"quota", "/chat/completions", chat("fake:error:quota"), 429, "insufficient_quota", "insufficient_quota"},
		{"500", "/chat/completions", chat("fake:error:500"), 500, "server_error", ""},
		{"503", "/chat/completions", chat("fake:error:503"), 503, "server_error", ""},
		{"529", "/chat/completions", chat("fake:error:529"), 529, "server_error", "overloaded"},
		{"completions", "/completions", `{"model":"gpt-3.5-turbo-instruct","prompt":["a","fake:error:503"]}`, 503, "server_error", ""},
		{"embeddings", "/embeddings", `{"model":"text-embedding-3-small","input":["fake:error:429","b"]}`, 429, "tokens", "rate_limit_exceeded"},
		{"not last user message", "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"fake:error:500"},{"role":"user","content":"hi"}]}`, 200, "", ""},
		{"unknown trigger", "/chat/completions", chat("fake:error:418"), 200, "", ""},
		{"midstream without stream", "/chat/completions", chat("fake:midstream-error"), 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, s, tt.path, tt.body)
			e := gjson.GetBytes(r.body, "error")
			if r.status != tt.status || e.Get("type").Str != tt.typ || e.Get("code").Str != tt.code {
				t.Errorf("got %d %s", r.status, r.body)
			}
			if tt.status == 429 && tt.code == "rate_limit_exceeded" {
				if r.header.Get("Retry-After") != "2" || r.header.Get("X-Ratelimit-Remaining-Tokens") != "0" || r.header.Get("X-Ratelimit-Reset-Tokens") == "" {
					t.Errorf("429 headers %v", r.header)
				}
			}
		})
	}
}

func TestTriggerMidstream(t *testing.T) {
	s := start(t, Options{})
	for _, tt := range []struct{ path, body string }{
		{"/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"fake:midstream-error"}],"stream":true}`},
		{"/completions", `{"model":"gpt-3.5-turbo-instruct","prompt":"fake:midstream-error","stream":true}`},
	} {
		evs := stream(t, s, tt.path, tt.body)
		last := gjson.Parse(evs[len(evs)-1])
		if last.Get("error.type").Str != "server_error" || !last.Get("error.code").Exists() {
			t.Errorf("%s: last event %s", tt.path, last.Raw)
		}
		content := 0
		for _, ev := range evs[:len(evs)-1] {
			if gjson.Get(ev, "choices.0.delta.content").Str != "" || gjson.Get(ev, "choices.0.text").Str != "" {
				content++
			}
		}
		if content != 2 {
			t.Errorf("%s: %d content chunks before the error: %q", tt.path, content, evs)
		}
	}
}

func TestTriggerHangAndClose(t *testing.T) {
	s := start(t, Options{})
	send := func(text string, timeout time.Duration) error {
		req, _ := http.NewRequest("POST", s.URL+"/chat/completions", strings.NewReader(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"`+text+`"}]}`))
		req.Header.Set("Authorization", "Bearer "+defaultKey)
		req.Header.Set("Content-Type", "application/json")
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: timeout}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	begin := time.Now()
	if err := send("fake:hang", 200*time.Millisecond); err == nil || time.Since(begin) < 200*time.Millisecond {
		t.Errorf("hang: err %v after %v", err, time.Since(begin))
	}
	if err := send("fake:close", 5*time.Second); err == nil {
		t.Error("close: got a response")
	}
	if len(s.Requests()) != 2 {
		t.Errorf("%d requests recorded", len(s.Requests()))
	}
}

func TestEmbeddings(t *testing.T) {
	s := start(t, Options{})
	float := wantOK(t, post(t, s, "/embeddings", `{"model":"text-embedding-3-small","input":["first","second"],"encoding_format":"float"}`))
	b64 := wantOK(t, post(t, s, "/embeddings", `{"model":"text-embedding-3-small","input":["first","second"],"encoding_format":"base64"}`))
	for i := range 2 {
		fv := floats(float.Get("data." + string(rune('0'+i)) + ".embedding"))
		bv := decodeBase64(t, b64.Get("data."+string(rune('0'+i))+".embedding").Str)
		if len(fv) != 1536 || !cmp.Equal(fv, bv) {
			t.Fatalf("input %d: float and base64 differ (%d, %d values)", i, len(fv), len(bv))
		}
		if n := norm(fv); math.Abs(n-1) > 1e-5 {
			t.Errorf("input %d: norm %v", i, n)
		}
	}
	if cmp.Equal(floats(float.Get("data.0.embedding")), floats(float.Get("data.1.embedding"))) {
		t.Error("different inputs, same vector")
	}
	again := wantOK(t, post(t, s, "/embeddings", `{"model":"text-embedding-3-small","input":"first"}`))
	if !cmp.Equal(floats(again.Get("data.0.embedding")), floats(float.Get("data.0.embedding"))) {
		t.Error("vectors are not deterministic")
	}
	if got := float.Get("usage").Raw; got != `{"prompt_tokens":2,"total_tokens":2}` || float.Get("model").Str != "text-embedding-3-small" || float.Get("data.1.index").Int() != 1 {
		t.Errorf("response %.300s", float.Raw)
	}

	tests := []struct {
		body     string
		n, dims  int
		tokens   int64
		floatOut bool
	}{
		{`{"model":"text-embedding-3-large","input":"x","dimensions":256,"encoding_format":"float"}`, 1, 256, 1, true},
		{`{"model":"text-embedding-3-large","input":"x","encoding_format":"float"}`, 1, 3072, 1, true},
		{`{"model":"text-embedding-3-small","input":[791,4062,14198],"encoding_format":"float"}`, 1, 1536, 3, true},
		{`{"model":"text-embedding-ada-002","input":[[1,2],[3,4,5]],"encoding_format":"base64"}`, 2, 1536, 5, false},
		{`{"model":"fake-embed","input":"x","dimensions":4,"encoding_format":"float"}`, 1, 4, 1, true},
	}
	for _, tt := range tests {
		got := wantOK(t, post(t, s, "/embeddings", tt.body))
		data := got.Get("data").Array()
		if len(data) != tt.n || got.Get("usage.prompt_tokens").Int() != tt.tokens {
			t.Errorf("%s: %d items, usage %s", tt.body, len(data), got.Get("usage").Raw)
			continue
		}
		v := data[0].Get("embedding")
		dims := len(v.Array())
		if !tt.floatOut {
			dims = len(decodeBase64(t, v.Str))
		}
		if dims != tt.dims {
			t.Errorf("%s: %d dimensions", tt.body, dims)
		}
	}
}

func TestEmbeddingsFloatOnly(t *testing.T) {
	s := start(t, Options{FloatOnly: true})
	got := wantOK(t, post(t, s, "/embeddings", `{"model":"text-embedding-3-small","input":"x","encoding_format":"base64"}`))
	if !got.Get("data.0.embedding").IsArray() {
		t.Errorf("embedding %.80s", got.Get("data.0.embedding").Raw)
	}
}

func floats(v gjson.Result) []float32 {
	var out []float32
	for _, f := range v.Array() {
		out = append(out, float32(f.Num))
	}
	return out
}

func decodeBase64(t *testing.T, s string) []float32 {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw)%4 != 0 {
		t.Fatalf("bad base64 %.40q: %v", s, err)
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func norm(v []float32) float64 {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	return math.Sqrt(sum)
}

func TestCompletions(t *testing.T) {
	s := start(t, Options{})
	r := post(t, s, "/completions", `{"model":"gpt-3.5-turbo-instruct","prompt":"Say this is a test","max_tokens":7}`)
	wantOK(t, r)
	want := decode(t, `{"id":"ID","object":"text_completion","created":0,"model":"gpt-3.5-turbo-instruct",
		"choices":[{"text":"You said: Say this is a test","index":0,"logprobs":null,"finish_reason":"length"}],
		"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`)
	if diff := cmp.Diff(want, normalize(t, r.body)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	tests := []struct {
		body  string
		texts []string
		usage string
	}{
		{`{"model":"davinci-002","prompt":"hi"}`, []string{"You said: hi and that is all I have to say about"}, `{"prompt_tokens":1,"completion_tokens":12,"total_tokens":13}`},
		{`{"model":"davinci-002","prompt":"hi","max_tokens":0}`, []string{""}, `{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}`},
		{`{"model":"davinci-002","prompt":"hi","max_tokens":2,"echo":true}`, []string{"hiYou said:"}, `{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}`},
		{`{"model":"babbage-002","prompt":["a","b"],"n":2,"max_tokens":3}`, []string{"You said: a", "You said: a", "You said: b", "You said: b"}, `{"prompt_tokens":2,"completion_tokens":12,"total_tokens":14}`},
		{`{"model":"babbage-002","prompt":[[1,2,3]],"max_tokens":2}`, []string{"You said:"}, `{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}`},
	}
	for _, tt := range tests {
		got := wantOK(t, post(t, s, "/completions", tt.body))
		var texts []string
		for i, c := range got.Get("choices").Array() {
			texts = append(texts, c.Get("text").Str)
			if c.Get("index").Int() != int64(i) {
				t.Errorf("%s: choice %d has index %d", tt.body, i, c.Get("index").Int())
			}
		}
		if diff := cmp.Diff(tt.texts, texts); diff != "" || got.Get("usage").Raw != tt.usage {
			t.Errorf("%s: texts (-want +got):\n%s usage %s", tt.body, diff, got.Get("usage").Raw)
		}
	}
}
