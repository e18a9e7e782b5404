package fakeupstream_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// faulty is what every fake offers through the core.
type faulty interface {
	SetFaults(fakeupstream.Faults)
	Stats() fakeupstream.Stats
	Calls() int64
	Close()
}

// fake is one of the three fakes and how to call it.
type fake struct {
	name string
	srv  faulty
	// request builds a valid chat request, streamed or not.
	request func(ctx context.Context, stream bool) *http.Request
	// end is what the last event of a complete stream contains.
	end string
	// errorField and overloaded: where the error body names its kind,
	// and what it says for the provider's overload status (status).
	errorField, overloaded string
	status                 int
}

// fakes starts the three fakes, closed when t ends.
func fakes(t *testing.T) []fake {
	o := fakeopenai.Start(fakeopenai.Options{})
	a := fakeanthropic.Start(fakeanthropic.Options{})
	g := fakegemini.Start(fakegemini.Options{LF: true})
	for _, c := range []faulty{o, a, g} {
		t.Cleanup(c.Close)
	}
	return []fake{
		{name: "openai", srv: o, end: "[DONE]", errorField: "error.type", overloaded: "server_error", status: 503,
			request: func(ctx context.Context, stream bool) *http.Request {
				body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":` + boolText(stream) + `}`
				r := newPost(ctx, o.URL+"/chat/completions", body)
				r.Header.Set("Authorization", "Bearer test-upstream-key")
				return r
			}},
		{name: "anthropic", srv: a, end: "message_stop", errorField: "error.type", overloaded: "overloaded_error", status: 529,
			request: func(ctx context.Context, stream bool) *http.Request {
				body := `{"model":"claude-fake-1","max_tokens":50,"messages":[{"role":"user","content":"hi"}],"stream":` + boolText(stream) + `}`
				r := newPost(ctx, a.URL+"/v1/messages", body)
				r.Header.Set("X-Api-Key", "test-upstream-key")
				r.Header.Set("Anthropic-Version", "2023-06-01")
				return r
			}},
		{name: "gemini", srv: g, end: `"finishReason":"STOP"`, errorField: "error.status", overloaded: "UNAVAILABLE", status: 503,
			request: func(ctx context.Context, stream bool) *http.Request {
				url := g.URL + "/v1beta/models/gemini-2.5-flash:generateContent"
				if stream {
					url = g.URL + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
				}
				r := newPost(ctx, url, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
				r.Header.Set("X-Goog-Api-Key", fakegemini.DefaultKey)
				return r
			}},
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func newPost(ctx context.Context, url, body string) *http.Request {
	r, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	r.Header.Set("Content-Type", "application/json")
	return r
}

// newClient is a plain client of its own, its connections closed when t ends.
func newClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// result is what a client saw of one call.
type result struct {
	status int
	header http.Header
	body   []byte
	events int   // "data:" lines read
	err    error // from Do or from reading the body
}

// do sends the fake's request and reads the answer to the end, or until
// ctx ends or the connection fails.
func do(ctx context.Context, c *http.Client, f fake, stream bool) result {
	resp, err := c.Do(f.request(ctx, stream))
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	res := result{status: resp.StatusCode, header: resp.Header}
	var buf bytes.Buffer
	sc := bufio.NewScanner(io.TeeReader(resp.Body, &buf))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data:") {
			res.events++
		}
	}
	res.body, res.err = buf.Bytes(), sc.Err()
	return res
}

// within is a context that ends after d: a call the fault holds longer
// than that fails.
func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eachFake runs test on each fake, in parallel with other tests.
func eachFake(t *testing.T, test func(*testing.T, fake)) {
	t.Parallel()
	for _, f := range fakes(t) {
		t.Run(f.name, func(t *testing.T) { test(t, f) })
	}
}
