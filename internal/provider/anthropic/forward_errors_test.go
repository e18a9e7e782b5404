package anthropic

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
)

// askFake is a Messages request whose user text is say.
func askFake(say string, stream bool) *provider.Request {
	body := `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":` + strconv.FormatBool(stream) +
		`,"messages":[{"role":"user","content":"` + say + `"}]}`
	return forwardRequest("claude-sonnet-4-5", "claude-sonnet-4-5", body)
}

// TestForwardErrors: upstream errors are classified as the chat path's.
func TestForwardErrors(t *testing.T) {
	tests := []struct {
		trigger string
		want    errorView
	}{
		{"error:400", errorView{"bad_request", 400, "invalid_request_error", "", "", 0, "max_tokens: Field required"}},
		{"error:401", errorView{"auth", 401, "authentication_error", "", "", 0, "invalid x-api-key"}},
		{"error:404", errorView{"not_found", 404, "not_found_error", "", "", 0, "model: claude-sonnet-4-5"}},
		{"error:429", errorView{"rate_limit", 429, "rate_limit_error", "", "", 14 * time.Second, "This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."}},
		{"error:500", errorView{"unavailable", 500, "api_error", "", "", 0, "Internal server error"}},
		{"error:529", errorView{"overloaded", 529, "overloaded_error", "", "", 0, "Overloaded"}},
	}
	_, c := newFake(t, fakeanthropic.Options{})
	for _, tt := range tests {
		t.Run(tt.trigger, func(t *testing.T) {
			_, err := c.Forward(context.Background(), askFake("fake:"+tt.trigger, false))
			if diff := cmp.Diff(tt.want, viewOf(t, err)); diff != "" {
				t.Errorf("Forward (-want +got):\n%s", diff)
			}
			st, err := c.ForwardStream(context.Background(), askFake("fake:"+tt.trigger, true))
			if err == nil {
				st.Close()
			}
			if diff := cmp.Diff(tt.want, viewOf(t, err)); diff != "" {
				t.Errorf("ForwardStream (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForwardMidstreamError(t *testing.T) {
	srv, c := newFake(t, fakeanthropic.Options{})
	st, err := c.ForwardStream(context.Background(), askFake("fake:midstream-error", true))
	if err != nil {
		t.Fatal(describe(err))
	}
	events, err := relayAll(t, st)
	want := errorView{Kind: "overloaded", Type: "overloaded_error", Message: "Overloaded"}
	if diff := cmp.Diff(want, viewOf(t, err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if len(events) == 0 || !strings.Contains(events[0], `"message_start"`) {
		t.Errorf("events before the error: %q", events)
	}
	if _, again := st.Next(); again != err {
		t.Errorf("Next after the error = %v, want the same error", again)
	}
	if u := st.Usage(); !u.Estimated || u.PromptTokens != 4 {
		t.Errorf("usage %+v, want the prompt and an estimate", u)
	}
	st.Close()
	waitIdle(t, srv)
}

// TestForwardStreamCut: a body that ends before message_stop is an error,
// never a complete answer.
func TestForwardStreamCut(t *testing.T) {
	body := readFile(t, "testdata/anthropic/messages_stream_text.sse")
	cut := body[:strings.Index(string(body), "event: message_delta")]
	st, err := sseServer(t, cut).ForwardStream(context.Background(), askFake("hi", true))
	if err != nil {
		t.Fatal(describe(err))
	}
	defer st.Close()
	_, err = relayAll(t, st)
	if v := viewOf(t, err); v.Kind != "unavailable" {
		t.Errorf("error %+v", v)
	}
	if !st.Usage().Estimated {
		t.Errorf("usage %+v not an estimate", st.Usage())
	}
}

func TestForwardFirstByteTimeout(t *testing.T) {
	srv := fakeanthropic.Start(fakeanthropic.Options{Latency: time.Second})
	defer srv.Close()
	c := New(Options{Name: "anthropic", BaseURL: srv.URL, APIKey: fakeKey, FirstByteTimeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := c.ForwardStream(context.Background(), askFake("hi", true))
	if v := viewOf(t, err); v.Kind != "timeout" || !errors.Is(err, provider.ErrFirstByteTimeout) {
		t.Errorf("error %s", describe(err))
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %v", d)
	}
	waitIdle(t, srv)
}
