package fakeanthropic

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// post sends body to the fake with the headers an SDK sends, minus those
// named in drop.
func post(t *testing.T, s *Server, path, body string, drop ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	h := map[string]string{"X-Api-Key": defaultKey, "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"}
	for k, v := range h {
		if !slices.Contains(drop, k) {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const askHello = `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Say hello."}]}`

func TestHeaders(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	tests := []struct {
		name, path, body string
		drop             []string
		status           int
		typ, message     string
	}{
		{"no key", "/v1/messages", askHello, []string{"X-Api-Key"}, 401, "authentication_error", "x-api-key header is required"},
		{"no version", "/v1/messages", askHello, []string{"Anthropic-Version"}, 400, "invalid_request_error", "anthropic-version: header is required"},
		{"no content type", "/v1/messages", askHello, []string{"Content-Type"}, 400, "invalid_request_error", "content-type: expected application/json"},
		{"unknown path", "/v1/complete", askHello, nil, 404, "not_found_error", "Not Found"},
		{"not JSON", "/v1/messages", "{", nil, 400, "invalid_request_error", "There was an error parsing the body: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, s, tt.path, tt.body, tt.drop...)
			b := readAll(t, resp.Body)
			got := []any{resp.StatusCode, gjson.GetBytes(b, "type").Str, gjson.GetBytes(b, "error.type").Str, gjson.GetBytes(b, "error.message").Str,
				gjson.GetBytes(b, "request_id").Str == resp.Header.Get("Request-Id")}
			if diff := cmp.Diff([]any{tt.status, "error", tt.typ, tt.message, true}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s\n%s", diff, b)
			}
		})
	}
	wrong := Start(Options{Key: "other"})
	defer wrong.Close()
	resp := post(t, wrong, "/v1/messages", askHello)
	want := gjson.GetBytes(fixture(t, "error_401_authentication.json"), "error|@ugly").Raw
	if got := gjson.GetBytes(readAll(t, resp.Body), "error|@ugly").Raw; resp.StatusCode != 401 || got != want {
		t.Errorf("wrong key: %d %s, want 401 %s", resp.StatusCode, got, want)
	}
}

// keySet lists the members of an object.
func keySet(v gjson.Result) []string {
	var out []string
	v.ForEach(func(k, _ gjson.Result) bool { out = append(out, k.Str); return true })
	slices.Sort(out)
	return out
}

func TestMessage(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	resp := post(t, s, "/v1/messages", askHello)
	b := readAll(t, resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	want := gjson.ParseBytes(fixture(t, "messages_response_basic.json"))
	got := gjson.ParseBytes(b)
	if diff := cmp.Diff(keySet(want), keySet(got)); diff != "" {
		t.Errorf("members mismatch (-fixture +fake):\n%s", diff)
	}
	if got.Get("content.0.text").Str != "You said: Say hello. and that is all I have to say" || got.Get("stop_reason").Str != "end_turn" ||
		got.Get("usage.input_tokens").Int() != 5 || got.Get("usage.output_tokens").Int() != 12 {
		t.Errorf("answer %s", b)
	}
	last := s.Last()
	if last.Path != "/v1/messages" || string(last.Body) != askHello || len(s.Requests()) != 1 {
		t.Errorf("recorded %+v", last)
	}
}

// readEvents reads an event stream into its event names and data.
func readEvents(t *testing.T, r io.Reader) (names []string, data []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, d)
			if gjson.Get(d, "type").Str != names[len(names)-1] {
				t.Errorf("data type differs from the event name: %s", line)
			}
		}
	}
	return names, data
}

// collapse merges runs of one event name, so that streams of different
// lengths compare by shape.
func collapse(names []string) []string { return slices.Compact(slices.Clone(names)) }

func TestStreamShape(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	tools := `"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},{"name":"get_time","input_schema":{"type":"object"}}]`
	tests := []struct{ name, body, fixture string }{
		{"text", `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Say hello."}]}`, "messages_stream_text.sse"},
		{"tool use", `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,` + tools + `,"messages":[{"role":"user","content":"Weather?"}]}`, "messages_stream_tool_use.sse"},
		{"midstream error", `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"fake:midstream-error"}]}`, "messages_stream_error_overloaded.sse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, s, "/v1/messages", tt.body)
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("%d %s", resp.StatusCode, ct)
			}
			got, data := readEvents(t, resp.Body)
			want, _ := readEvents(t, bytes.NewReader(fixture(t, tt.fixture)))
			if diff := cmp.Diff(collapse(want), collapse(got)); diff != "" {
				t.Errorf("event order mismatch (-fixture +fake):\n%s", diff)
			}
			last := data[len(data)-1]
			if tt.name == "midstream error" && gjson.Get(last, "error.type").Str != "overloaded_error" {
				t.Errorf("last event %s", last)
			}
		})
	}
}

func TestTriggers(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	tests := []struct {
		trigger, fixture string
		status           int
		retryAfter       string
	}{
		{"error:400", "error_400_invalid_request.json", 400, ""},
		{"error:401", "error_401_authentication.json", 401, ""},
		{"error:403", "error_403_permission.json", 403, ""},
		{"error:404", "", 404, ""},
		{"error:413", "", 413, ""},
		{"error:429", "error_429_rate_limit.json", 429, "14"},
		{"error:500", "error_500_api_error.json", 500, ""},
		{"error:504", "", 504, ""},
		{"error:529", "error_529_overloaded.json", 529, ""},
	}
	for _, tt := range tests {
		t.Run(tt.trigger, func(t *testing.T) {
			for _, stream := range []string{"false", "true"} {
				body := `{"model":"claude-haiku-4-5","max_tokens":10,"stream":` + stream + `,"messages":[{"role":"user","content":"x fake:` + tt.trigger + `"}]}`
				resp := post(t, s, "/v1/messages", body)
				b := readAll(t, resp.Body)
				if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter {
					t.Errorf("status %d retry-after %q, want %d %q", resp.StatusCode, resp.Header.Get("Retry-After"), tt.status, tt.retryAfter)
				}
				if tt.fixture != "" {
					want := gjson.GetBytes(fixture(t, tt.fixture), "error|@ugly").Raw
					if got := gjson.GetBytes(b, "error|@ugly").Raw; got != want {
						t.Errorf("error %s, want %s", got, want)
					}
				}
			}
		})
	}
}

func TestHang(t *testing.T) {
	s := Start(Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	body := `{"model":"claude-haiku-4-5","max_tokens":10,"messages":[{"role":"user","content":"fake:hang"}]}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", defaultKey)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("a hanging request got an answer")
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if n := s.Active(); n != 0 {
		t.Errorf("Active = %d after Close", n)
	}
}
