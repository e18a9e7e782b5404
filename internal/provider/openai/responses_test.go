package openai_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

func responsesRequest(model, upstream, body string) *provider.Request {
	return &provider.Request{Endpoint: provider.EndpointResponses, Model: model, UpstreamModel: upstream,
		Body: []byte(body), RequestID: "req-test"}
}

func TestForwards(t *testing.T) {
	for _, typ := range []string{"openai", "together", "groq", "fireworks", "deepinfra", "openai_compatible"} {
		c := openai.New(openai.Options{Name: typ, Type: typ})
		if got := c.Forwards(provider.EndpointResponses); got != (typ == "openai") {
			t.Errorf("%s: Forwards(responses) = %v", typ, got)
		}
		if c.Forwards(provider.EndpointMessages) || c.Forwards(provider.EndpointChat) {
			t.Errorf("%s forwards messages or chat", typ)
		}
	}
}

func TestForwardResponses(t *testing.T) {
	body := string(readFixture(t, "responses/request_text_basic.json"))
	tests := []struct {
		name, model, upstream string
		sent                  string // the body the upstream gets
		answerModel           string
	}{
		{"same model: body untouched", "gpt-4.1-mini", "gpt-4.1-mini", body, "gpt-4.1-mini-2025-04-14"},
		{"alias", "my-mini", "gpt-4.1-mini", body, "my-mini"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := replay(t, "responses/response_text_basic.json")
			c := newClient(t, u.URL, openai.Options{})
			in := body
			if tt.model != tt.upstream {
				in = strings.Replace(body, `"gpt-4.1-mini"`, `"`+tt.model+`"`, 1)
			}
			resp, err := c.Forward(testContext(t), responsesRequest(tt.model, tt.upstream, in))
			if err != nil {
				t.Fatal(err)
			}
			got := u.last(t)
			if got.Path != "/v1/responses" || string(got.Body) != tt.sent {
				t.Errorf("upstream got %s %s", got.Path, got.Body)
			}
			if m := gjson.GetBytes(resp.Body, "model").Str; m != tt.answerModel {
				t.Errorf("answer model %q", m)
			}
			fixture := readFixture(t, "responses/response_text_basic.json")
			if tt.model == tt.upstream && string(resp.Body) != string(fixture) {
				t.Error("answer not relayed verbatim")
			}
			want := provider.Usage{PromptTokens: 31, CompletionTokens: 8, TotalTokens: 39}
			if diff := cmp.Diff(want, resp.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// sseData are the data lines of an SSE fixture.
func sseData(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestForwardResponsesStream(t *testing.T) {
	tests := []struct {
		fixture, model string
		want           provider.Usage
	}{
		{"stream_text.sse", "gpt-4.1-mini", provider.Usage{PromptTokens: 31, CompletionTokens: 8, TotalTokens: 39}},
		{"stream_reasoning.sse", "gpt-5-mini", provider.Usage{PromptTokens: 58, CompletionTokens: 402, TotalTokens: 460, ReasoningTokens: 384}},
		{"stream_function_call.sse", "gpt-4.1-mini", provider.Usage{}},
		{"stream_incomplete_max_output_tokens.sse", "gpt-4.1-mini", provider.Usage{PromptTokens: 22, CompletionTokens: 16, TotalTokens: 38}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			u := replay(t, "responses/"+tt.fixture)
			c := newClient(t, u.URL, openai.Options{})
			st, err := c.ForwardStream(testContext(t), responsesRequest(tt.model, tt.model, `{"model":"`+tt.model+`","input":"x","stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			events, err := drain(t, st)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range events {
				got = append(got, string(e))
			}
			if diff := cmp.Diff(sseData(readFixture(t, "responses/"+tt.fixture)), got); diff != "" {
				t.Errorf("events (-fixture +relayed):\n%s", diff)
			}
			us := st.Usage()
			if us.Estimated || us.TotalTokens == 0 || tt.want != (provider.Usage{}) && us != tt.want {
				t.Errorf("usage %+v, want %+v", us, tt.want)
			}
		})
	}
}

// TestForwardResponsesStreamAlias: the events that carry the response
// name the client's model; the others pass unchanged.
func TestForwardResponsesStreamAlias(t *testing.T) {
	u := replay(t, "responses/stream_text.sse")
	c := newClient(t, u.URL, openai.Options{})
	st, err := c.ForwardStream(testContext(t), responsesRequest("my-mini", "gpt-4.1-mini", `{"model":"my-mini","input":"x","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	events, err := drain(t, st)
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(u.last(t).Body, "model").Str != "gpt-4.1-mini" {
		t.Errorf("upstream body %s", u.last(t).Body)
	}
	for i, want := range sseData(readFixture(t, "responses/stream_text.sse")) {
		got := string(events[i])
		if m := gjson.Get(want, "response.model"); m.Exists() {
			want = strings.Replace(want, `"model":"gpt-4.1-mini-2025-04-14"`, `"model":"my-mini"`, 1)
		}
		if got != want {
			t.Errorf("event %d = %s\nwant %s", i, got, want)
		}
	}
}

func TestForwardResponsesMidstreamError(t *testing.T) {
	u := replay(t, "responses/stream_midstream_error.sse")
	c := newClient(t, u.URL, openai.Options{})
	st, err := c.ForwardStream(testContext(t), responsesRequest("gpt-4.1-mini", "gpt-4.1-mini", `{"model":"gpt-4.1-mini","input":"x","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	events, err := drain(t, st)
	pe := asError(t, err)
	if pe.Kind != provider.KindUnavailable || pe.Code != "server_error" || pe.Message != "The upstream model provider failed while generating the response." {
		t.Errorf("error %+v", pe)
	}
	if n := len(sseData(readFixture(t, "responses/stream_midstream_error.sse"))); len(events) != n-2 {
		t.Errorf("%d events before the error, want %d", len(events), n-2)
	}
	if !st.Usage().Estimated {
		t.Errorf("usage %+v not an estimate", st.Usage())
	}
}

func TestForwardResponsesErrors(t *testing.T) {
	tests := []struct {
		status  int
		fixture string
		kind    provider.Kind
		retry   time.Duration
	}{
		{400, "error_400_unsupported_parameter.json", provider.KindBadRequest, 0},
		{429, "error_429_rate_limit_exceeded.json", provider.KindRateLimit, 2 * time.Second},
		{500, "error_500_server_error.json", provider.KindUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}, "Retry-After": {"2"}}
			if tt.retry == 0 {
				h.Del("Retry-After")
			}
			u := newUpstream(t, tt.status, h, readFixture(t, "responses/"+tt.fixture))
			c := newClient(t, u.URL, openai.Options{})
			for _, stream := range []bool{false, true} {
				r := responsesRequest("gpt-4.1-mini", "gpt-4.1-mini", `{"model":"gpt-4.1-mini","input":"x"}`)
				var err error
				if stream {
					var st provider.Stream
					if st, err = c.ForwardStream(testContext(t), r); err == nil {
						st.Close()
					}
				} else {
					_, err = c.Forward(testContext(t), r)
				}
				pe := asError(t, err)
				msg := gjson.GetBytes(readFixture(t, "responses/"+tt.fixture), "error.message").Str
				if pe.Kind != tt.kind || pe.Status != tt.status || pe.RetryAfter != tt.retry || pe.Message != msg || pe.Path != "/v1/responses" {
					t.Errorf("stream %v: error %+v", stream, pe)
				}
			}
		})
	}
}

// TestForwardResponsesFake goes through the strict fake: usage as the
// fake bills it, whole and streamed.
func TestForwardResponsesFake(t *testing.T) {
	s := fakeopenai.Start(fakeopenai.Options{CachedTokens: 2})
	defer s.Close()
	c := newClient(t, s.Server.URL, openai.Options{APIKey: "test-upstream-key"})
	body := `{"model":"alias","input":"Say hello.","reasoning":{"effort":"low"}}`
	resp, err := c.Forward(testContext(t), responsesRequest("alias", "o4-mini", body))
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25, CachedTokens: 2, ReasoningTokens: 8}
	if diff := cmp.Diff(want, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if m := gjson.GetBytes(resp.Body, "model").Str; m != "alias" {
		t.Errorf("model %q", m)
	}
	st, err := c.ForwardStream(testContext(t), responsesRequest("alias", "o4-mini", strings.Replace(body, "{", `{"stream":true,`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	events, err := drain(t, st)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, st.Usage()); diff != "" {
		t.Errorf("stream usage (-want +got):\n%s", diff)
	}
	if first := gjson.GetBytes(events[0], "type").Str; first != "response.created" {
		t.Errorf("first event %s", events[0])
	}
}

func TestForwardResponsesFirstByteTimeout(t *testing.T) {
	s := fakeopenai.Start(fakeopenai.Options{Latency: time.Second})
	defer s.Close()
	c := newClient(t, s.Server.URL, openai.Options{APIKey: "test-upstream-key", FirstByteTimeout: 50 * time.Millisecond})
	_, err := c.ForwardStream(testContext(t), responsesRequest("gpt-4o", "gpt-4o", `{"model":"gpt-4o","input":"x","stream":true}`))
	if pe := asError(t, err); pe.Kind != provider.KindTimeout || !errors.Is(err, provider.ErrFirstByteTimeout) {
		t.Errorf("error %+v", pe)
	}
}
