package anthropic

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// errorView is what the gateway reads from a *provider.Error.
type errorView struct {
	Kind       string
	Status     int
	Type, Code string
	Param      string
	RetryAfter time.Duration
	Message    string
}

func viewOf(t *testing.T, err error) errorView {
	t.Helper()
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *provider.Error", err)
	}
	if pe.Provider != "anthropic" {
		t.Errorf("Provider = %q", pe.Provider)
	}
	return errorView{kindName(pe.Kind), pe.Status, pe.Type, pe.Code, pe.Param, pe.RetryAfter, pe.Message}
}

// TestFakeErrors triggers each upstream failure of the fake, for plain
// calls and streams (which fail before their first byte).
func TestFakeErrors(t *testing.T) {
	tests := []struct {
		trigger string
		want    errorView
	}{
		{"error:400", errorView{"bad_request", 400, "invalid_request_error", "", "", 0, "max_tokens: Field required"}},
		{"error:context", errorView{"bad_request", 400, "invalid_request_error", "context_length_exceeded", "messages", 0, "prompt is too long: 208310 tokens > 200000 maximum"}},
		{"error:401", errorView{"auth", 401, "authentication_error", "", "", 0, "invalid x-api-key"}},
		{"error:403", errorView{"auth", 403, "permission_error", "", "", 0, "Your API key does not have permission to use the specified resource."}},
		{"error:404", errorView{"not_found", 404, "not_found_error", "", "", 0, "model: claude-sonnet-4-5"}},
		{"error:413", errorView{"bad_request", 413, "request_too_large", "request_too_large", "", 0, "Request exceeds the maximum allowed number of bytes."}},
		{"error:429", errorView{"rate_limit", 429, "rate_limit_error", "", "", 14 * time.Second, "This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."}},
		{"error:500", errorView{"unavailable", 500, "api_error", "", "", 0, "Internal server error"}},
		{"error:504", errorView{"timeout", 504, "timeout_error", "", "", 0, "Request timed out"}},
		{"error:529", errorView{"overloaded", 529, "overloaded_error", "", "", 0, "Overloaded"}},
	}
	_, c := newFake(t, fakeanthropic.Options{})
	for _, tt := range tests {
		t.Run(tt.trigger, func(t *testing.T) {
			body := `{"messages":[{"role":"user","content":"please fake:` + tt.trigger + `"}]}`
			_, err := c.Chat(context.Background(), chatRequest(body, false))
			if diff := cmp.Diff(tt.want, viewOf(t, err)); diff != "" {
				t.Errorf("Chat mismatch (-want +got):\n%s", diff)
			}
			st, err := c.ChatStream(context.Background(), chatRequest(body, true))
			if err == nil {
				st.Close()
			}
			if diff := cmp.Diff(tt.want, viewOf(t, err)); diff != "" {
				t.Errorf("ChatStream mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFakeMidstreamError(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{})
	st, err := c.ChatStream(context.Background(), chatRequest(`{"messages":[{"role":"user","content":"fake:midstream-error"}]}`, true))
	if err != nil {
		t.Fatal(describe(err))
	}
	defer st.Close()
	_, chunks, err := drain(t, st, true)
	want := errorView{Kind: "overloaded", Type: "overloaded_error", Message: "Overloaded"}
	if diff := cmp.Diff(want, viewOf(t, err)); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
	if len(chunks) != 2 {
		t.Errorf("chunks before the error = %q, want the role chunk and one delta", chunks)
	}
	if _, again := st.Next(); again != err {
		t.Errorf("Next after the error = %v, want the same error", again)
	}
	if u := st.Usage(); u.PromptTokens != 4 {
		t.Errorf("Usage = %+v, want the prompt counted", u)
	}
	st.Close()
	waitIdle(t, srv)
}

func TestFakeWrongKey(t *testing.T) {
	srv := fakeanthropic.Start(fakeanthropic.Options{})
	defer srv.Close()
	c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: "wrong"})
	_, err := c.Chat(context.Background(), chatRequest(`{`+hello+`}`, false))
	want := errorView{Kind: "auth", Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}
	if diff := cmp.Diff(want, viewOf(t, err)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestRefusedBeforeSending checks that a refused request never reaches
// the upstream.
func TestRefusedBeforeSending(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{})
	_, err := c.Chat(context.Background(), chatRequest(`{"n":3,`+hello+`}`, false))
	if v := viewOf(t, err); v.Kind != "bad_request" || v.Param != "n" {
		t.Errorf("Chat: %+v", v)
	}
	_, err = c.ChatStream(context.Background(), chatRequest(`{"n":3,`+hello+`}`, false))
	if v := viewOf(t, err); v.Kind != "bad_request" || v.Param != "n" {
		t.Errorf("ChatStream: %+v", v)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestStatusErrors maps upstream error responses the fake does not make.
func TestStatusErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		want   errorView
	}{
		{"billing", 402, nil, `{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low."}}`,
			errorView{"auth", 402, "billing_error", "", "", 0, "Your credit balance is too low."}},
		{"413 from the proxy", 413, nil, `<html>Request Entity Too Large</html>`,
			errorView{"bad_request", 413, "", "request_too_large", "", 0, "Request Entity Too Large"}},
		{"529 with retry-after", 529, map[string]string{"Retry-After": "3"}, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			errorView{"overloaded", 529, "overloaded_error", "", "", 3 * time.Second, "Overloaded"}},
		{"overloaded as 503", 503, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			errorView{"overloaded", 503, "overloaded_error", "", "", 0, "Overloaded"}},
		{"429 retry-after-ms", 429, map[string]string{"Retry-After-Ms": "1500"}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
			errorView{"rate_limit", 429, "rate_limit_error", "", "", 1500 * time.Millisecond, "slow down"}},
		{"200 error body", 200, nil, `{"type":"error","error":{"type":"api_error","message":"oops"}}`,
			errorView{Kind: "unavailable", Type: "api_error", Message: "oops"}},
		{"200 garbage", 200, nil, `not json`, errorView{Kind: "unavailable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: "k"})
			_, err := c.Chat(context.Background(), chatRequest(`{`+hello+`}`, false))
			if diff := cmp.Diff(tt.want, viewOf(t, err)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTimeouts checks Options.Timeout: the whole of a plain call, the wait
// for headers of a stream; and a client that goes away.
func TestTimeouts(t *testing.T) {
	srv := fakeanthropic.Start(fakeanthropic.Options{})
	defer srv.Close()
	c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey, Timeout: 50 * time.Millisecond})
	hang := `{"messages":[{"role":"user","content":"fake:hang"}]}`
	if _, err := c.Chat(context.Background(), chatRequest(hang, false)); viewOf(t, err).Kind != "timeout" {
		t.Errorf("Chat: %s", describe(err))
	}
	if _, err := c.ChatStream(context.Background(), chatRequest(hang, false)); viewOf(t, err).Kind != "timeout" {
		t.Errorf("ChatStream: %s", describe(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	c = New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey})
	if _, err := c.Chat(ctx, chatRequest(hang, false)); viewOf(t, err).Kind != "canceled" {
		t.Errorf("Chat canceled: %s", describe(err))
	}
	waitIdle(t, srv)
}

// TestStreamOutlivesTimeout checks that a slow stream is not cut by the
// first-byte timeout once it has begun.
func TestStreamOutlivesTimeout(t *testing.T) {
	srv := fakeanthropic.Start(fakeanthropic.Options{TokenDelay: 10 * time.Millisecond, Words: 8})
	defer srv.Close()
	c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey, FirstByteTimeout: 50 * time.Millisecond})
	st, err := c.ChatStream(context.Background(), chatRequest(`{`+hello+`}`, false))
	if err != nil {
		t.Fatal(describe(err))
	}
	defer st.Close()
	if _, _, err := drain(t, st, false); err != nil {
		t.Fatal(describe(err))
	}
}

// TestStreamConnection checks that Close after a complete stream returns
// the connection to the pool, and that Close in the middle of one releases
// the upstream.
func TestStreamConnection(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{})
	var reused []bool
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = append(reused, info.Reused) }}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	for range 2 {
		st, err := c.ChatStream(ctx, chatRequest(`{`+hello+`}`, true))
		if err != nil {
			t.Fatal(describe(err))
		}
		if _, _, err := drain(t, st, true); err != nil {
			t.Fatal(describe(err))
		}
		st.Close()
	}
	if diff := cmp.Diff([]bool{false, true}, reused); diff != "" {
		t.Errorf("connection reuse mismatch (-want +got):\n%s", diff)
	}

	slow, c := newFake(t, fakeanthropic.Options{TokenDelay: 200 * time.Millisecond})
	st, err := c.ChatStream(context.Background(), chatRequest(`{`+hello+`}`, false))
	if err != nil {
		t.Fatal(describe(err))
	}
	if _, err := st.Next(); err != nil {
		t.Fatal(describe(err))
	}
	st.Close()
	waitIdle(t, slow)
	waitIdle(t, srv)
}

// waitIdle waits until the fake has no request in hand.
func waitIdle(t *testing.T, srv *fakeanthropic.Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for srv.Active() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the fake still handles %d requests", srv.Active())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Anthropic answers an unknown path with not_found_error too, but only an
// unknown model's message starts "model:"; the rest is the gateway's
// misconfiguration.
func TestWrongPath(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"model", 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, "not_found"},
		{"path", 404, `{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}`, "no_endpoint"},
		{"html", 404, `<html>Not Found</html>`, "no_endpoint"},
		{"method", 405, `{"type":"error","error":{"type":"invalid_request_error","message":"Method Not Allowed"}}`, "no_endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: "k"})
			_, err := c.Chat(context.Background(), chatRequest(`{"messages":[{"role":"user","content":"hi"}]}`, false))
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v", err)
			}
			if got := kindName(pe.Kind); got != tt.want || pe.Path != "/v1/messages" {
				t.Errorf("kind %s, path %q; want %s, /v1/messages", got, pe.Path, tt.want)
			}
		})
	}
}
