package openai_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

// chatRequest is a small valid chat request.
func chatRequest() *provider.Request {
	return &provider.Request{Model: "gpt-4o-mini", UpstreamModel: "gpt-4o-mini",
		Body: []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`)}
}

// open calls Chat, or opens a stream with ChatStream and reads it to its
// end; either way it returns the error.
type open func(ctx context.Context, c *openai.Client, r *provider.Request) error

var opens = []struct {
	name string
	open open
}{
	{"Chat", func(ctx context.Context, c *openai.Client, r *provider.Request) error {
		_, err := c.Chat(ctx, r)
		return err
	}},
	{"ChatStream", func(ctx context.Context, c *openai.Client, r *provider.Request) error {
		r.Stream = true
		st, err := c.ChatStream(ctx, r)
		if err != nil {
			return err
		}
		st.Close()
		return nil
	}},
}

func TestUpstreamStatus(t *testing.T) {
	tests := []struct {
		status  int
		fixture string
		header  http.Header
		want    provider.Error
	}{
		{400, "openai/error_400_context_length_exceeded.json", nil, provider.Error{Kind: provider.KindBadRequest,
			Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
			Type:    "invalid_request_error", Code: "context_length_exceeded", Param: "messages"}},
		{401, "openai/error_401_invalid_api_key.json", nil, provider.Error{Kind: provider.KindAuth,
			Message: "Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
			Type:    "invalid_request_error", Code: "invalid_api_key"}},
		{403, "anthropic/error_403_permission.json", nil, provider.Error{Kind: provider.KindAuth,
			Message: "Your API key does not have permission to use the specified resource.", Type: "permission_error"}},
		{404, "openai/error_404_model_not_found.json", nil, provider.Error{Kind: provider.KindNotFound,
			Message: "The model `gpt-9-turbo` does not exist or you do not have access to it.",
			Type:    "invalid_request_error", Code: "model_not_found"}},
		{429, "openai/error_429_rate_limit_exceeded.json", http.Header{"Retry-After": {"3"}}, provider.Error{Kind: provider.KindRateLimit,
			Message: "Rate limit reached for gpt-4o-mini in organization org-abc123 on tokens per min (TPM): Limit 200000, Used 199000, Requested 2400. Please try again in 420ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
			Type:    "tokens", Code: "rate_limit_exceeded", RetryAfter: 3 * time.Second}},
		{429, "openai/error_429_rate_limit_exceeded.json", http.Header{"Retry-After-Ms": {"420"}, "Retry-After": {"1"}}, provider.Error{Kind: provider.KindRateLimit,
			Message: "Rate limit reached for gpt-4o-mini in organization org-abc123 on tokens per min (TPM): Limit 200000, Used 199000, Requested 2400. Please try again in 420ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
			Type:    "tokens", Code: "rate_limit_exceeded", RetryAfter: 420 * time.Millisecond}},
		{500, "openai/error_500_server_error.json", nil, provider.Error{Kind: provider.KindUnavailable,
			Message: "The server had an error while processing your request. Sorry about that!", Type: "server_error"}},
		{503, "gemini/error_503_unavailable.json", nil, provider.Error{Kind: provider.KindUnavailable,
			Message: "The model is overloaded. Please try again later.", Code: "503"}},
		{529, "anthropic/error_529_overloaded.json", nil, provider.Error{Kind: provider.KindOverloaded,
			Message: "Overloaded", Type: "overloaded_error"}},
		{502, "", nil, provider.Error{Kind: provider.KindUnavailable, Message: "Bad Gateway"}}, // empty body
	}
	for _, tt := range tests {
		for _, op := range opens {
			t.Run(op.name+"/"+http.StatusText(tt.status)+"/"+tt.fixture, func(t *testing.T) {
				var body []byte
				if tt.fixture != "" {
					body = readFixture(t, tt.fixture)
				}
				h := http.Header{"Content-Type": {"application/json"}}
				for k, v := range tt.header {
					h[k] = v
				}
				u := newUpstream(t, tt.status, h, body)
				c := newClient(t, u.URL, openai.Options{Name: "up"})
				got := asError(t, op.open(testContext(t), c, chatRequest()))
				want := tt.want
				want.Provider, want.Status, want.Path = "up", tt.status, "/v1/chat/completions"
				if diff := cmp.Diff(&want, got); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// hang starts a server that sends nothing until the client gives up or
// the test ends.
func hang(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a gone client only once the body is read
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first
	return srv
}

func TestTransportFailures(t *testing.T) {
	closed := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	tests := []struct {
		name    string
		base    func(t *testing.T) string
		timeout time.Duration
		ctx     func(t testing.TB) context.Context
		want    provider.Kind
	}{
		{"no answer within Timeout", func(t *testing.T) string { return hang(t).URL }, 50 * time.Millisecond, testContext, provider.KindTimeout},
		{"context canceled before the call", func(t *testing.T) string { return hang(t).URL }, time.Minute,
			func(t testing.TB) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			}, provider.KindCanceled},
		{"context canceled while waiting", func(t *testing.T) string { return hang(t).URL }, time.Minute,
			func(t testing.TB) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(30*time.Millisecond, cancel)
				t.Cleanup(cancel)
				return ctx
			}, provider.KindCanceled},
		{"context deadline", func(t *testing.T) string { return hang(t).URL }, time.Minute,
			func(t testing.TB) context.Context {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			}, provider.KindTimeout},
		{"closed port", closed, time.Minute, testContext, provider.KindUnavailable},
	}
	for _, tt := range tests {
		for _, op := range opens {
			t.Run(op.name+"/"+tt.name, func(t *testing.T) {
				c := newClient(t, tt.base(t), openai.Options{Name: "up", Timeout: tt.timeout})
				start := time.Now()
				got := asError(t, op.open(tt.ctx(t), c, chatRequest()))
				if got.Kind != tt.want || got.Status != 0 || got.Provider != "up" || got.Err == nil {
					t.Errorf("error %+v (%v), want Kind %v with the cause and no status", got, got, tt.want)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("took %v to fail", d)
				}
			})
		}
	}
}

// Options.FirstByteTimeout bounds the wait for a stream's first byte only:
// a slow stream that has started is not cut off.
func TestStreamOutlivesTimeout(t *testing.T) {
	body := readFixture(t, "openai/chat_stream_text_include_usage.sse")
	first := bytes.Index(body, []byte("\n\n")) + 2 // the first event
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.Write(body[:first])
		http.NewResponseController(w).Flush()
		select {
		case <-time.After(200 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Write(body[first:])
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, openai.Options{FirstByteTimeout: 50 * time.Millisecond})
	r := chatRequest()
	r.Stream, r.IncludeUsage = true, true
	st, err := c.ChatStream(testContext(t), r)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, st)
	if err != nil {
		t.Fatalf("after %d chunks: %v", len(chunks), err)
	}
	want := provider.Usage{PromptTokens: 19, CompletionTokens: 10, TotalTokens: 29}
	if diff := cmp.Diff(want, st.Usage(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Usage() (-want +got):\n%s", diff)
	}
}

// A stream the client abandons early cancels the upstream call.
func TestStreamCloseEarly(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, openai.Options{})
	r := chatRequest()
	r.Stream = true
	st, err := c.ChatStream(testContext(t), r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("upstream request still running 5s after Close")
	}
}

// A client that goes away mid-stream ends the stream with KindCanceled,
// which the gateway neither retries nor counts against the upstream.
func TestStreamCanceledMidway(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, openai.Options{Name: "up"})
	ctx, cancel := context.WithCancel(testContext(t))
	r := chatRequest()
	r.Stream = true
	st, err := c.ChatStream(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = st.Next()
	if got := asError(t, err); got.Kind != provider.KindCanceled {
		t.Errorf("error %v, Kind %v; want KindCanceled", got, got.Kind)
	}
}

// A 404 or 405 that is not OpenAI's model_not_found (a base URL without
// /v1, a host that is not OpenAI-compatible) is the gateway's
// misconfiguration, not an unknown model; the error names the path.
func TestUpstreamWrongPath(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   provider.Kind
	}{
		{"model_not_found", 404, `{"error":{"message":"The model ` + "`x`" + ` does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, provider.KindNotFound},
		{"param model", 404, `{"error":{"message":"Unable to access model x","type":"invalid_request_error","param":"model","code":"model_not_available"}}`, provider.KindNotFound},
		{"plain text", 404, `404 page not found`, provider.KindNoEndpoint},
		{"unknown_url", 404, `{"error":{"message":"Invalid URL (POST /chat/completions)","type":"invalid_request_error","param":null,"code":"unknown_url"}}`, provider.KindNoEndpoint},
		{"method not allowed", 405, `{"detail":"Method Not Allowed"}`, provider.KindNoEndpoint},
	}
	for _, tt := range tests {
		for _, op := range opens {
			t.Run(op.name+"/"+tt.name, func(t *testing.T) {
				u := newUpstream(t, tt.status, http.Header{"Content-Type": {"application/json"}}, []byte(tt.body))
				c := newClient(t, u.URL, openai.Options{Name: "up"})
				got := asError(t, op.open(testContext(t), c, chatRequest()))
				if got.Kind != tt.want || got.Path != "/v1/chat/completions" || got.Status != tt.status {
					t.Errorf("kind %d, path %q, status %d; want kind %d, path /v1/chat/completions", got.Kind, got.Path, got.Status, tt.want)
				}
			})
		}
	}
}
