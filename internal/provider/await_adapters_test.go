package provider_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/anthropic"
	"github.com/switchyard-gw/switchyard/internal/provider/gemini"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

// awaitHook is a wait hook that notes, for each wait on the body, whether
// an adapter's Await is waiting; each such wait lets the upstream send
// its next read.
type awaitHook struct {
	reading bool
	waits   int
	outside int // waits not under an Await
	turn    chan struct{}
}

func (h *awaitHook) Wait() error {
	if !h.reading {
		return nil
	}
	h.waits++
	if !awaitOnStack() {
		h.outside++
	}
	h.turn <- struct{}{}
	return nil
}

func (h *awaitHook) Reading(on bool) { h.reading = on }

// awaitOnStack reports whether an adapter's Await is on the caller's
// stack.
func awaitOnStack() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "/internal/provider/") && strings.HasSuffix(f.Function, ").Await") {
			return true
		}
		if !more {
			return false
		}
	}
}

// TestStreamsAwait: every adapter's streams wait apart from Next
// (provider.Awaiter): a caller that waits through Await before each Next
// has each read of the body done in Await, when each read brings a chunk
// (issue 18: a wait in Next is deep, and the client writer's first flush
// in it runs on a goroutine of its own). The upstream sends one read for
// each wait.
func TestStreamsAwait(t *testing.T) {
	const oaHead = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":`
	chat := &provider.Request{Model: "m", UpstreamModel: "m", Stream: true, IncludeUsage: true,
		Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)}
	tests := []struct {
		name  string
		open  func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error)
		reads []string
	}{
		{"openai chat", func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error) {
			return openai.New(openai.Options{Name: "openai", Type: "openai", BaseURL: base, Transport: tr}).ChatStream(ctx, chat)
		}, []string{
			oaHead + `[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n",
			oaHead + `[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
			oaHead + `[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n" + "data: [DONE]\n\n",
		}},
		{"openai responses", func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error) {
			return openai.New(openai.Options{Name: "openai", Type: "openai", BaseURL: base, Transport: tr}).ForwardStream(ctx,
				&provider.Request{Endpoint: provider.EndpointResponses, Model: "m", UpstreamModel: "m", Stream: true,
					Body: []byte(`{"model":"m","input":"hi","stream":true}`)})
		}, []string{
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"model\":\"m\"}}\n\n",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"model\":\"m\"," +
				"\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\n",
		}},
		{"anthropic chat", func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error) {
			return anthropic.New(anthropic.Options{Name: "anthropic", BaseURL: base, APIKey: "k", Transport: tr}).ChatStream(ctx, chat)
		}, anthropicReads},
		{"anthropic messages", func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error) {
			return anthropic.New(anthropic.Options{Name: "anthropic", BaseURL: base, APIKey: "k", Transport: tr}).ForwardStream(ctx,
				&provider.Request{Endpoint: provider.EndpointMessages, Model: "m", UpstreamModel: "m", Stream: true,
					Body: []byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"stream":true}`)})
		}, anthropicReads},
		{"gemini chat", func(ctx context.Context, base string, tr http.RoundTripper) (provider.Stream, error) {
			return gemini.New(gemini.Options{Name: "gemini", BaseURL: base, APIKey: "k", Transport: tr}).ChatStream(ctx, chat)
		}, []string{
			`data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"modelVersion":"m"}` + "\n\n",
			`data: {"candidates":[{"content":{"parts":[{"text":"!"}],"role":"model"},"finishReason":"STOP","index":0}],` +
				`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"totalTokenCount":3},"modelVersion":"m"}` + "\n\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &awaitHook{turn: make(chan struct{}, len(tt.reads)+2)}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				for _, read := range tt.reads {
					select { // a read for each wait on the body
					case <-h.turn:
					case <-r.Context().Done():
						return
					}
					io.WriteString(w, read)
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			tr := provider.NewTransport(0)
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := tt.open(provider.WithWaitHook(ctx, h), srv.URL, tr)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			aw, ok := st.(provider.Awaiter)
			if !ok {
				t.Fatalf("stream %T is not a provider.Awaiter", st)
			}
			chunks := 0
			for {
				aw.Await()
				if _, err := st.Next(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				chunks++
			}
			if chunks == 0 || h.waits < len(tt.reads) || h.outside != 0 {
				t.Errorf("%d chunks, %d waits on the body, %d of them outside Await; want chunks, %d waits, all in Await",
					chunks, h.waits, h.outside, len(tt.reads))
			}
		})
	}
}

// anthropicReads is a Messages stream, each read bringing a chunk (the
// translation's first, the role's, comes with the first content block).
var anthropicReads = []string{
	"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\"," +
		"\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
}
