package fakeopenai

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func start(t *testing.T, opt Options) *Server {
	t.Helper()
	s := Start(opt)
	t.Cleanup(s.Close)
	return s
}

type result struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request with the default key and a JSON content type; header
// holds name/value pairs that override them (an empty value deletes).
func do(t *testing.T, s *Server, method, path, body string, header ...string) result {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+defaultKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Del(header[i])
		if header[i+1] != "" {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

func post(t *testing.T, s *Server, path, body string) result {
	t.Helper()
	return do(t, s, "POST", path, body)
}

// wantOK fails unless r is a 200.
func wantOK(t *testing.T, r result) gjson.Result {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, body %s", r.status, r.body)
	}
	return gjson.ParseBytes(r.body)
}

// normalize decodes b and blanks the fields that change between runs.
func normalize(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if c, ok := m["created"].(float64); !ok || c < float64(time.Now().Add(-time.Hour).Unix()) {
		t.Errorf("created = %v", m["created"])
	}
	m["id"], m["created"] = "ID", float64(0)
	return m
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestChatBasic(t *testing.T) {
	s := start(t, Options{})
	r := post(t, s, "/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"developer","content":"You are a terse assistant."},{"role":"user","content":"Say hello."}]}`)
	wantOK(t, r)
	want := decode(t, `{"id":"ID","object":"chat.completion","created":0,"model":"gpt-4o-mini",
		"choices":[{"index":0,"message":{"role":"assistant","content":"You said: Say hello. and that is all I have to say","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],
		"usage":{"prompt_tokens":13,"completion_tokens":12,"total_tokens":25,
			"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
			"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
		"service_tier":"default","system_fingerprint":"fp_fake"}`)
	if diff := cmp.Diff(want, normalize(t, r.body)); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	id := gjson.GetBytes(r.body, "id").Str
	if !strings.HasPrefix(id, "chatcmpl-fake") {
		t.Errorf("id = %q", id)
	}
	for _, h := range []string{"X-Request-Id", "Openai-Processing-Ms", "X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Requests"} {
		if r.header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("content-type = %q", got)
	}
	if !strings.HasPrefix(r.header.Get("X-Request-Id"), "req_fake") {
		t.Errorf("x-request-id = %q", r.header.Get("X-Request-Id"))
	}
}

func TestChatAnswers(t *testing.T) {
	s := start(t, Options{Words: 6})
	tests := []struct {
		name, body   string
		content      string
		finish       string
		completion   int
		reasoning    int
		wantChoices  int
		wantLogprobs int
	}{
		{"words", `{"model":"gpt-4o","messages":[{"role":"user","content":"a b c d e f g"}]}`, "You said: a b c d", "stop", 6, 0, 1, 0},
		{"max_tokens cuts", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":3}`, "You said: hi", "length", 3, 0, 1, 0},
		{"max_completion_tokens cuts", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":2}`, "You said:", "length", 2, 0, 1, 0},
		{"stop sequence", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi there"}],"stop":["there"]}`, "You said: hi ", "stop", 4, 0, 1, 0},
		{"n", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"n":3}`, "You said: x and that is", "stop", 18, 0, 3, 0},
		{"text parts", `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"one"},{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"text","text":"two"}]}]}`, "You said: one two and that", "stop", 6, 0, 1, 0},
		{"reasoning model", `{"model":"o3-mini","messages":[{"role":"user","content":"x"}],"max_completion_tokens":100,"reasoning_effort":"low"}`, "You said: x and that is", "stop", 6 + reasoningTokens, reasoningTokens, 1, 0},
		{"json_object", `{"model":"gpt-4o","messages":[{"role":"user","content":"answer in JSON"}],"response_format":{"type":"json_object"}}`, `{"answer":"You said: answer in JSON and"}`, "stop", 6, 0, 1, 0},
		{"json_schema", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}}}}`, `{"name":"Paris","age":1}`, "stop", 1, 0, 1, 0},
		{"logprobs", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":2}`, "You said: x and that is", "stop", 6, 0, 1, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wantOK(t, post(t, s, "/chat/completions", tt.body))
			choices := got.Get("choices").Array()
			if len(choices) != tt.wantChoices {
				t.Fatalf("%d choices, want %d", len(choices), tt.wantChoices)
			}
			for i, c := range choices {
				if c.Get("index").Int() != int64(i) || c.Get("message.content").Str != tt.content || c.Get("finish_reason").Str != tt.finish {
					t.Errorf("choice %d = %s", i, c.Raw)
				}
			}
			if n := got.Get("usage.completion_tokens").Int(); n != int64(tt.completion) {
				t.Errorf("completion_tokens = %d, want %d", n, tt.completion)
			}
			if n := got.Get("usage.completion_tokens_details.reasoning_tokens").Int(); n != int64(tt.reasoning) {
				t.Errorf("reasoning_tokens = %d, want %d", n, tt.reasoning)
			}
			lp := got.Get("choices.0.logprobs.content")
			if n := len(lp.Array()); n != tt.wantLogprobs {
				t.Errorf("%d logprobs, want %d: %s", n, tt.wantLogprobs, lp.Raw)
			}
			if tt.wantLogprobs > 0 && len(lp.Get("0.top_logprobs").Array()) != 2 {
				t.Errorf("top_logprobs = %s", lp.Get("0.top_logprobs").Raw)
			}
		})
	}
}

func TestFixtureRequestsAccepted(t *testing.T) {
	s := start(t, Options{})
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			path := "/chat/completions"
			switch {
			case strings.HasPrefix(filepath.Base(f), "completions"):
				path = "/completions"
			case strings.HasPrefix(filepath.Base(f), "embeddings"):
				path = "/embeddings"
			}
			wantOK(t, post(t, s, path, string(body)))
		})
	}
}

func TestRequestsRecorded(t *testing.T) {
	s := start(t, Options{})
	if got := s.Last(); got.Method != "" {
		t.Fatalf("Last before any request = %+v", got)
	}
	body := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	post(t, s, "/chat/completions", body)
	do(t, s, "GET", "/models", "", "Authorization", "Bearer wrong")
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	if reqs[0].Method != "POST" || reqs[0].Path != "/v1/chat/completions" || string(reqs[0].Body) != body {
		t.Errorf("first = %s %s %s", reqs[0].Method, reqs[0].Path, reqs[0].Body)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+defaultKey {
		t.Errorf("authorization = %q", got)
	}
	last := s.Last()
	if last.Path != "/v1/models" || last.Header.Get("Authorization") != "Bearer wrong" {
		t.Errorf("last = %+v", last)
	}
	reqs[0].Body[0] = 'X' // copies: changing them must not change the log
	if s.Requests()[0].Body[0] != '{' {
		t.Error("Requests returned the log's own bytes")
	}
}

func TestModels(t *testing.T) {
	s := start(t, Options{})
	list := wantOK(t, do(t, s, "GET", "/models", ""))
	if list.Get("object").Str != "list" || len(list.Get("data").Array()) != len(catalogue) {
		t.Fatalf("list = %.200s", list.Raw)
	}
	tests := []struct {
		id, owner string
		status    int
	}{
		{"gpt-4o-mini", "system", 200},
		{"meta-llama/Llama-3.3-70B-Instruct-Turbo", "together", 200},
		{"accounts/fireworks/models/llama-v3p3-70b-instruct", "fireworks", 200},
		{"llama3.1:8b", "library", 200},
		{"fake-anything", "fake", 200},
		{"gpt-9-turbo", "", 404},
	}
	for _, tt := range tests {
		r := do(t, s, "GET", "/models/"+tt.id, "")
		got := gjson.ParseBytes(r.body)
		if r.status != tt.status {
			t.Errorf("%s: status %d", tt.id, r.status)
			continue
		}
		if tt.status == 404 {
			if got.Get("error.code").Str != "model_not_found" {
				t.Errorf("%s: %s", tt.id, r.body)
			}
			continue
		}
		if got.Get("id").Str != tt.id || got.Get("object").Str != "model" || got.Get("owned_by").Str != tt.owner || got.Get("created").Int() == 0 {
			t.Errorf("%s: %s", tt.id, r.body)
		}
	}
}

func TestLatency(t *testing.T) {
	s := start(t, Options{Latency: 150 * time.Millisecond})
	for _, path := range []string{"/models", "/models/gpt-4o"} {
		begin := time.Now()
		wantOK(t, do(t, s, "GET", path, ""))
		if d := time.Since(begin); d < 150*time.Millisecond {
			t.Errorf("%s answered after %v", path, d)
		}
	}
}

func TestInvalidURL(t *testing.T) {
	s := start(t, Options{})
	for _, tt := range []struct{ method, path string }{{"GET", "/chat/completions"}, {"POST", "/nope"}, {"GET", "/models/"}} {
		r := do(t, s, tt.method, tt.path, "")
		if r.status != 404 || !strings.Contains(gjson.GetBytes(r.body, "error.message").Str, "Invalid URL") {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, r.status, r.body)
		}
	}
}

func TestCloseEndsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	s := Start(Options{TokenDelay: 50 * time.Millisecond, Words: 1000})
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	results := make(chan error, 2)
	for _, text := range []string{"fake:hang", "a long stream"} {
		go func() {
			body := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"` + text + `"}]}`
			req, _ := http.NewRequest("POST", s.URL+"/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+defaultKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			results <- err
		}()
	}
	for len(s.Requests()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not return")
	}
	<-results
	<-results
	tr.CloseIdleConnections()
	for deadline := time.Now().Add(3 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
