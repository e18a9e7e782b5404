package anthropic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/envelope"
	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

func forwardRequest(model, upstream, body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointMessages, Model: model, UpstreamModel: upstream,
		Body: []byte(body), RequestID: "req-test", MaxOutputTokens: 64000}
}

func TestForwardBody(t *testing.T) {
	env := envelope.Seal("gemini", []byte(`[{"thoughtSignature":"abc"}]`))
	think := `{"type":"thinking","thinking":"hm","signature":"EqQD"}`
	turn := func(blocks ...string) string {
		return `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[` +
			strings.Join(blocks, ",") + `]},{"role":"user","content":"more"}]}`
	}
	text := `{"type":"text","text":"a"}`
	tests := []struct {
		name, model, upstream, body, want string
	}{
		{"nothing to edit", "claude-sonnet-4-5", "claude-sonnet-4-5", turn(think, text), turn(think, text)},
		{"model", "sonnet", "claude-sonnet-4-5", strings.Replace(turn(think, text), "claude-sonnet-4-5", "sonnet", 1), turn(think, text)},
		{"envelope signature", "claude-sonnet-4-5", "claude-sonnet-4-5",
			turn(`{"type":"thinking","thinking":"x","signature":"`+env+`"}`, think, text), turn(think, text)},
		{"empty signature", "claude-sonnet-4-5", "claude-sonnet-4-5",
			turn(think, `{"type":"thinking","thinking":"x","signature":""}`, text), turn(think, text)},
		{"empty signature spaced", "claude-sonnet-4-5", "claude-sonnet-4-5",
			turn(`{"type": "thinking", "thinking": "x", "signature": ""}`, text), turn(text)},
		{"redacted envelope", "claude-sonnet-4-5", "claude-sonnet-4-5",
			turn(`{"type":"redacted_thinking","data":"`+env+`"}`, `{"type":"redacted_thinking","data":"EmwK"}`, text),
			turn(`{"type":"redacted_thinking","data":"EmwK"}`, text)},
		{"envelope in text only", "claude-sonnet-4-5", "claude-sonnet-4-5",
			turn(`{"type":"text","text":"` + env + `"}`), turn(`{"type":"text","text":"` + env + `"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := forwardRequest(tt.model, tt.upstream, tt.body)
			got, err := forwardBody(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if string(r.Body) != tt.body {
				t.Errorf("client body modified: %s", r.Body)
			}
			if tt.body == tt.want && &got[0] != &r.Body[0] {
				t.Error("a body with nothing to edit was copied")
			}
		})
	}
}

// TestForwardFixture: a thinking continuation goes upstream unchanged.
func TestForwardFixture(t *testing.T) {
	body := readFile(t, "testdata/inbound/request_thinking_tool_result_continuation.json")
	r := forwardRequest("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", string(body))
	got, err := forwardBody(r)
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("forwardBody changed the fixture (err %v)", err)
	}
}

// fakeAsk is a Messages request the fake answers.
const fakeAsk = `{"model":"client-model","max_tokens":64,"messages":[{"role":"user","content":"Say hello."}]}`

func TestForwardFake(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{CacheReadTokens: 2})
	tests := []struct {
		name, model, upstream string
		wantModel             string
	}{
		{"renamed", "client-model", "claude-sonnet-4-5", "client-model"},
		{"same", "claude-sonnet-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"snapshot", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := forwardRequest(tt.model, tt.upstream, fakeAsk)
			r.Header = http.Header{"Anthropic-Beta": {"interleaved-thinking-2025-05-14,claude-code-20250219"}, "X-Other": {"no"}}
			resp, err := c.Forward(context.Background(), r)
			if err != nil {
				t.Fatal(describe(err))
			}
			sent := srv.Last()
			if got := gjson.GetBytes(sent.Body, "model").Str; got != tt.upstream {
				t.Errorf("upstream model %q", got)
			}
			if got := sent.Header.Get("Anthropic-Beta"); got != "interleaved-thinking-2025-05-14,claude-code-20250219" || sent.Header.Get("X-Other") != "" {
				t.Errorf("headers %v", sent.Header)
			}
			if sent.Header.Get("Anthropic-Version") != apiVersion || sent.Header.Get("X-Api-Key") != fakeKey {
				t.Errorf("auth headers %v", sent.Header)
			}
			if got := gjson.GetBytes(resp.Body, "model").Str; got != tt.wantModel {
				t.Errorf("answer model %q, want %q", got, tt.wantModel)
			}
			if gjson.GetBytes(resp.Body, "type").Str != "message" || gjson.GetBytes(resp.Body, "content.0.type").Str != "text" {
				t.Errorf("answer %s", resp.Body)
			}
			// "Say hello." is 2 words + 3: 2 read from the cache, 3 not.
			want := provider.Usage{PromptTokens: 5, CompletionTokens: 12, TotalTokens: 17, CachedTokens: 2}
			if diff := cmp.Diff(want, resp.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// relayAll reads a stream to its end.
func relayAll(t *testing.T, st provider.Stream) ([]string, error) {
	t.Helper()
	var out []string
	for {
		b, err := st.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, err
		}
		out = append(out, string(b))
	}
}

func TestForwardStreamFake(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{CacheReadTokens: 2})
	r := forwardRequest("client-model", "claude-sonnet-4-5", strings.Replace(fakeAsk, `"max_tokens"`, `"stream":true,"max_tokens"`, 1))
	st, err := c.ForwardStream(context.Background(), r)
	if err != nil {
		t.Fatal(describe(err))
	}
	defer st.Close()
	events, err := relayAll(t, st)
	if err != nil {
		t.Fatal(describe(err))
	}
	var types []string
	for _, e := range events {
		types = append(types, gjson.Get(e, "type").Str)
	}
	if types[0] != "message_start" || types[len(types)-1] != "message_stop" || !strings.Contains(strings.Join(types, " "), "content_block_delta") {
		t.Errorf("events %v", types)
	}
	if got := gjson.Get(events[0], "message.model").Str; got != "client-model" {
		t.Errorf("message_start model %q", got)
	}
	if !gjson.GetBytes(srv.Last().Body, "stream").Bool() {
		t.Error("upstream request not streamed")
	}
	want := provider.Usage{PromptTokens: 5, CompletionTokens: 12, TotalTokens: 17, CachedTokens: 2}
	if diff := cmp.Diff(want, st.Usage()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// sseServer serves body as an event stream.
func sseServer(t *testing.T, body []byte) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey, Timeout: 10 * time.Second})
}

// dataLines are the data of each event of an SSE fixture.
func dataLines(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestForwardStreamVerbatim: every event of the fixture, pings and
// thinking included, is relayed as is; usage as the stream says.
func TestForwardStreamVerbatim(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		want    provider.Usage
	}{
		{"testdata/inbound/stream_thinking.sse", provider.Usage{PromptTokens: 61, CompletionTokens: 143, TotalTokens: 204}},
		{"testdata/anthropic/messages_stream_tool_use.sse", provider.Usage{}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			body := readFile(t, tt.fixture)
			c := sseServer(t, body)
			model := gjson.Get(dataLines(body)[0], "message.model").Str
			st, err := c.ForwardStream(context.Background(), forwardRequest(model, model, fakeAsk))
			if err != nil {
				t.Fatal(describe(err))
			}
			defer st.Close()
			got, err := relayAll(t, st)
			if err != nil {
				t.Fatal(describe(err))
			}
			if diff := cmp.Diff(dataLines(body), got); diff != "" {
				t.Errorf("events (-fixture +relayed):\n%s", diff)
			}
			u := st.Usage()
			if tt.want != (provider.Usage{}) && u != tt.want {
				t.Errorf("usage %+v, want %+v", u, tt.want)
			}
			if u.Estimated || u.CompletionTokens == 0 {
				t.Errorf("usage %+v", u)
			}
		})
	}
}
