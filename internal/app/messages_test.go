package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/store"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// messagesBody is a Messages API request.
func messagesBody(model, content string, stream bool) string {
	return fmt.Sprintf(`{"model":%q,"max_tokens":256,"stream":%t,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":%q}]}`,
		model, stream, content)
}

// anthropicHeaders are an Anthropic SDK's headers for key.
func anthropicHeaders(key string) map[string]string {
	return map[string]string{"x-api-key": key, "anthropic-version": "2023-06-01", "Content-Type": "application/json",
		"anthropic-beta": "interleaved-thinking-2025-05-14"}
}

// sseEvent is one named event of a Messages stream.
type sseEvent struct {
	name string
	data gjson.Result
}

// readEvents parses a Messages stream, failing on an event whose name is
// not its data's type.
func readEvents(t *testing.T, raw string) []sseEvent {
	t.Helper()
	var evs []sseEvent
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		d := gjson.Parse(data)
		if name == "" || d.Get("type").Str != name {
			t.Errorf("event %q carries data of type %q", name, d.Get("type").Str)
		}
		evs = append(evs, sseEvent{name, d})
		name = ""
	}
	return evs
}

// TestMessagesAPI serves the Messages API over a Gemini model and an
// OpenAI-compatible Llama model, whole and streamed, and meters each
// request once with the tokens the client was told.
func TestMessagesAPI(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "messages@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "messages@example.com")
	told := map[string][2]int64{} // request ID → input (with cache), output tokens
	n := 0
	for _, model := range []string{"gemini-2.5-flash", "llama-3.3-70b-instruct"} {
		for _, stream := range []bool{false, true} {
			n++
			id := fmt.Sprintf("req-msg-%d", n)
			t.Run(fmt.Sprintf("%s stream=%v", model, stream), func(t *testing.T) {
				hdr := anthropicHeaders(key)
				hdr["X-Request-Id"] = id
				path := "/v1/messages"
				if stream { // Claude Code's style: ?beta=true and a bearer token
					path += "?beta=true"
					delete(hdr, "x-api-key")
					hdr["Authorization"] = "Bearer " + key
				}
				resp, _, raw := do(t, "POST", g.URL+path, hdr, messagesBody(model, "Say hello", stream))
				if resp.StatusCode != 200 || resp.Header.Get("request-id") != id {
					t.Fatalf("status %d, request-id %q: %s", resp.StatusCode, resp.Header.Get("request-id"), raw)
				}
				var u gjson.Result
				if stream {
					u = checkMessagesStream(t, readEvents(t, raw))
				} else {
					u = checkMessage(t, gjson.Parse(raw), model)
				}
				told[id] = [2]int64{u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int(), u.Get("output_tokens").Int()}
			})
		}
	}
	resp, _, raw := do(t, "POST", g.URL+"/v1/messages/count_tokens?beta=true", anthropicHeaders(key),
		`{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"Say hello"}]}`)
	if resp.StatusCode != 200 || gjson.Get(raw, "input_tokens").Int() <= 0 {
		t.Errorf("count_tokens: %d %s", resp.StatusCode, raw)
	}
	waitRows(t, g.Store, acct.ID, int64(n)) // count_tokens is not metered
	checkMessagesUsage(t, g.Store, acct.ID, told)
}

func checkMessage(t *testing.T, m gjson.Result, model string) gjson.Result {
	t.Helper()
	if m.Get("type").Str != "message" || m.Get("role").Str != "assistant" || !strings.HasPrefix(m.Get("id").Str, "msg_") ||
		m.Get("content.0.type").Str != "text" || m.Get("content.0.text").Str == "" || m.Get("stop_reason").Str != "end_turn" ||
		!strings.HasPrefix(m.Get("model").Str, model) {
		t.Errorf("message %s", m.Raw)
	}
	return m.Get("usage")
}

func checkMessagesStream(t *testing.T, evs []sseEvent) gjson.Result {
	t.Helper()
	if len(evs) < 5 || evs[0].name != "message_start" || evs[len(evs)-1].name != "message_stop" || evs[len(evs)-2].name != "message_delta" {
		t.Fatalf("events %v", evs)
	}
	if evs[0].data.Get("message.usage.input_tokens").Int() <= 0 {
		t.Errorf("message_start without an input estimate: %s", evs[0].data.Raw)
	}
	var text strings.Builder
	for _, ev := range evs {
		text.WriteString(ev.data.Get("delta.text").Str)
	}
	if text.Len() == 0 {
		t.Error("no text in the stream")
	}
	return evs[len(evs)-2].data.Get("usage")
}

// checkMessagesUsage checks the one record of each request against what
// its client was told.
func checkMessagesUsage(t *testing.T, st *store.Store, accountID string, told map[string][2]int64) {
	t.Helper()
	recs, err := st.ListUsage(context.Background(), accountID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		want, ok := told[r.RequestID]
		if !ok {
			t.Errorf("unexpected record %+v", r)
			continue
		}
		if r.Endpoint != "messages" || r.Status != 200 || r.PromptTokens != want[0] || r.CompletionTokens != want[1] || r.PromptTokens == 0 {
			t.Errorf("%s: record %s %s status %d tokens %d/%d, client told %v", r.RequestID, r.Model, r.Endpoint, r.Status,
				r.PromptTokens, r.CompletionTokens, want)
		}
		delete(told, r.RequestID)
	}
	if len(told) > 0 {
		t.Errorf("no records for %v", told)
	}
}

// anthropicError checks an error answer's Anthropic shape and returns its
// error object.
func anthropicError(t *testing.T, resp *http.Response, raw string, status int, typ string) gjson.Result {
	t.Helper()
	b := gjson.Parse(raw)
	if resp.StatusCode != status || b.Get("type").Str != "error" || b.Get("error.type").Str != typ ||
		b.Get("request_id").Str == "" || b.Get("request_id").Str != resp.Header.Get("request-id") {
		t.Errorf("want %d %s, got %d %s (request-id %q)", status, typ, resp.StatusCode, raw, resp.Header.Get("request-id"))
	}
	return b.Get("error")
}

func TestMessagesErrors(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "msgerr@example.com")
	body := messagesBody("gpt-4o-mini", "Hi", false)
	without := func(h map[string]string, k string) map[string]string { delete(h, k); return h }
	tests := []struct {
		name, path string
		hdr        map[string]string
		body       string
		status     int
		typ, msg   string
	}{
		{"no key", "/v1/messages", without(anthropicHeaders(key), "x-api-key"), body, 401, "authentication_error", "API key"},
		{"malformed x-api-key", "/v1/messages", anthropicHeaders("sk-nope"), body, 401, "authentication_error", "Malformed"},
		{"unknown x-api-key", "/v1/messages", anthropicHeaders("sk-switchyard-" + strings.Repeat("a", 32)), body, 401, "authentication_error", "Incorrect API key"},
		{"no anthropic-version", "/v1/messages", without(anthropicHeaders(key), "anthropic-version"), body, 400, "invalid_request_error", "anthropic-version: header is required"},
		{"no max_tokens", "/v1/messages", anthropicHeaders(key), `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}]}`, 400, "invalid_request_error", "max_tokens: Field required"},
		{"server tool", "/v1/messages", anthropicHeaders(key), `{"model":"gpt-4o-mini","max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"Hi"}]}`, 400, "invalid_request_error", "tools.0.type"},
		{"budget over max_tokens", "/v1/messages", anthropicHeaders(key), `{"model":"gpt-4o-mini","max_tokens":1024,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"Hi"}]}`, 400, "invalid_request_error", "max_tokens"},
		{"unknown model", "/v1/messages", anthropicHeaders(key), messagesBody("claude-sonnet-9", "Hi", false), 404, "not_found_error", "Model not found"},
		{"unknown model stream", "/v1/messages", anthropicHeaders(key), messagesBody("claude-sonnet-9", "Hi", true), 404, "not_found_error", "Model not found"},
		{"count unknown model", "/v1/messages/count_tokens", anthropicHeaders(key), `{"model":"claude-sonnet-9","messages":[{"role":"user","content":"Hi"}]}`, 404, "not_found_error", "Model not found"},
		{"count no key", "/v1/messages/count_tokens", without(anthropicHeaders(key), "x-api-key"), `{"model":"gpt-4o-mini","messages":[]}`, 401, "authentication_error", "API key"},
		{"upstream overloaded", "/v1/messages", anthropicHeaders(key), messagesBody("gpt-4o-mini", "fake:error:500", false), 502, "api_error", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _, raw := do(t, "POST", g.URL+tt.path, tt.hdr, tt.body)
			e := anthropicError(t, resp, raw, tt.status, tt.typ)
			if !strings.Contains(e.Get("message").Str, tt.msg) {
				t.Errorf("message %q, want it to contain %q", e.Get("message").Str, tt.msg)
			}
		})
	}
}

// TestMessagesMidstreamError: once the stream has started, an upstream
// failure is an error event, with no message_stop.
func TestMessagesMidstreamError(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "msgmid@example.com")
	resp, _, raw := do(t, "POST", g.URL+"/v1/messages", anthropicHeaders(key), messagesBody("gpt-4o-mini", "fake:midstream-error", true))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readEvents(t, raw)
	last := evs[len(evs)-1]
	if evs[0].name != "message_start" || last.name != "error" || last.data.Get("error.type").Str == "" || strings.Contains(raw, "message_stop") {
		t.Errorf("stream %s", raw)
	}
}

// TestMessagesRateLimited: over the key's RPM the Messages API answers
// Anthropic's 429 with the same headers as chat.
func TestMessagesRateLimited(t *testing.T) {
	l := startLimited(t, nil, fakeopenai.Options{}, nil)
	key, _, _ := l.limitedKey(t, "msgrpm@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](1)})
	body := messagesBody("gpt-4o-mini", "Hi", false)
	if resp, _, raw := do(t, "POST", l.URL+"/v1/messages", anthropicHeaders(key), body); resp.StatusCode != 200 {
		t.Fatalf("first request: %d %s", resp.StatusCode, raw)
	}
	resp, _, raw := do(t, "POST", l.URL+"/v1/messages", anthropicHeaders(key), body)
	e := anthropicError(t, resp, raw, 429, "rate_limit_error")
	if !strings.Contains(e.Get("message").Str, "Rate limit reached for requests per minute") {
		t.Errorf("message %s", e.Raw)
	}
	retryAfter(t, resp)
	if header(t, resp, "x-ratelimit-limit-requests") != 1 {
		t.Errorf("headers %v", resp.Header)
	}
	var b map[string]json.RawMessage
	json.Unmarshal([]byte(raw), &b)
	if len(b) != 3 {
		t.Errorf("body keys %v, want type, error, request_id", b)
	}
}

// TestMessagesKeyHeaders: a key in x-api-key or Authorization: Bearer
// passes; when both are sent and differ, x-api-key decides.
func TestMessagesKeyHeaders(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "msgkeys@example.com")
	bad := "sk-switchyard-" + strings.Repeat("b", 32)
	tests := []struct {
		apiKey, bearer string
		status         int
	}{
		{key, "", 200},
		{"", key, 200},
		{key, key, 200},
		{key, bad, 200},
		{bad, key, 401},
	}
	for _, tt := range tests {
		hdr := anthropicHeaders(tt.apiKey)
		if tt.apiKey == "" {
			delete(hdr, "x-api-key")
		}
		if tt.bearer != "" {
			hdr["Authorization"] = "Bearer " + tt.bearer
		}
		resp, _, raw := do(t, "POST", g.URL+"/v1/messages", hdr, messagesBody("gpt-4o-mini", "Hi", false))
		if resp.StatusCode != tt.status {
			t.Errorf("x-api-key %t, bearer %t: %d %s", tt.apiKey == key, tt.bearer == key, resp.StatusCode, raw)
		}
	}
}

// TestMessagesServerTools: a request with one of Anthropic's server tools
// goes natively to a Claude model's upstream, and is refused, naming the
// tool, for a model whose upstream cannot run it.
func TestMessagesServerTools(t *testing.T) {
	_, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "msgserver@example.com")
	body := func(model string) string {
		return fmt.Sprintf(`{"model":%q,"max_tokens":64,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":2}],"messages":[{"role":"user","content":"Hi"}]}`, model)
	}
	resp, _, raw := do(t, "POST", g.URL+"/v1/messages", anthropicHeaders(key), body("claude-sonnet-4-5"))
	if resp.StatusCode != http.StatusOK || gjson.Get(raw, "type").Str != "message" {
		t.Fatalf("claude-sonnet-4-5: %d %s, want a message", resp.StatusCode, raw)
	}
	resp, _, raw = do(t, "POST", g.URL+"/v1/messages", anthropicHeaders(key), body("gemini-2.5-flash"))
	e := anthropicError(t, resp, raw, http.StatusBadRequest, "invalid_request_error")
	if !strings.Contains(e.Get("message").Str, "tools.0.type") {
		t.Errorf("gemini-2.5-flash: message %q, want it to name tools.0.type", e.Get("message").Str)
	}
}
