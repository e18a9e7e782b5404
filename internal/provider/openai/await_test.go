package openai_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

// awaitHook is a wait hook that notes, for each wait on the body, whether
// the stream's Await is waiting and what Buffered said before it; each
// such wait lets the upstream send its next event.
type awaitHook struct {
	reading  bool
	buffered bool // what the stream's Buffered said last
	waits    int
	errs     []string
	turn     chan struct{}
}

func (h *awaitHook) Wait() error {
	if !h.reading {
		return nil
	}
	h.waits++
	if !onStack("openai.(*stream).Await") {
		h.errs = append(h.errs, "a read outside Await")
	}
	if h.buffered {
		h.errs = append(h.errs, "a read after Buffered said true")
	}
	h.turn <- struct{}{}
	return nil
}

func (h *awaitHook) Reading(on bool) { h.reading = on }

// onStack reports whether a function whose name ends in fn is on the
// caller's stack.
func onStack(fn string) bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, fn) {
			return true
		}
		if !more {
			return false
		}
	}
}

// TestStreamAwait: a caller that asks Buffered and waits through Await
// before each Next has each read of the body done in Await (issue 18),
// and Buffered says false before each.
func TestStreamAwait(t *testing.T) {
	const head = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":`
	events := []string{
		head + `[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n",
		head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
		head + `[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n",
		"data: [DONE]\n\n",
	}
	h := &awaitHook{turn: make(chan struct{}, len(events)+1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, ev := range events {
			select { // an event for each wait on the body
			case <-h.turn:
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, openai.Options{})
	st, err := c.ChatStream(provider.WithWaitHook(testContext(t), h), &provider.Request{Model: "gpt-4o-mini",
		UpstreamModel: "gpt-4o-mini", Stream: true, IncludeUsage: true,
		Body: []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, ok := st.(provider.Buffered)
	aw, ok2 := st.(provider.Awaiter)
	if !ok || !ok2 {
		t.Fatalf("stream %T is not a provider.Buffered and a provider.Awaiter", st)
	}
	var chunks int
	for {
		h.buffered = b.Buffered()
		aw.Await()
		if _, err := st.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		chunks++
	}
	if chunks != 3 || h.waits == 0 {
		t.Errorf("%d chunks after %d waits on the body, want 3 chunks", chunks, h.waits)
	}
	for _, e := range h.errs {
		t.Error(e)
	}
}
