// Package fakeanthropic serves a strict, deterministic fake of Anthropic's
// Messages API for the gateway's tests.
package fakeanthropic

import (
	"crypto/subtle"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// Options shape a fake server. The zero value is a well-behaved Anthropic.
type Options struct {
	Key        string        // required x-api-key; default "test-upstream-key"
	Latency    time.Duration // delay before the response headers
	TokenDelay time.Duration // delay between streamed events
	Words      int           // words in generated answers (default 12)
	// CacheReadTokens is how many of each request's input tokens the fake
	// reports as read from the prompt cache (at most all of them).
	CacheReadTokens int
}

// Server is a running fake upstream; the core gives it URL (the host
// base without /v1, e.g. http://127.0.0.1:1234), Close, Requests, Last,
// Active, Calls, Handler, SetFaults and Stats.
type Server struct {
	*fakeupstream.Server
	opt Options
}

const (
	defaultKey   = "test-upstream-key"
	defaultWords = 12
)

// Start starts a server on 127.0.0.1:0 (loopback only). It panics if it
// cannot listen, like httptest.NewServer.
func Start(opt Options) *Server {
	if opt.Key == "" {
		opt.Key = defaultKey
	}
	if opt.Words <= 0 {
		opt.Words = defaultWords
	}
	s := &Server{opt: opt}
	mux := http.NewServeMux()
	mux.Handle("POST /v1/messages", s.endpoint(s.messages))
	mux.Handle("POST /v1/messages/count_tokens", s.endpoint(s.countTokens))
	mux.Handle("/", s.endpoint(nil))
	s.Server = fakeupstream.Start(fakeupstream.Config{Name: "fakeanthropic", Latency: opt.Latency, Handler: mux, Error: s.injected})
	return s
}

// call is one request being answered.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	body  []byte
	reqID string
}

// endpoint checks the key, the API version and the content type before
// handing the call to h; the core has recorded the request and waited
// out Latency.
func (s *Server) endpoint(h func(*call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, reqID: s.NewID("req_fake")}
		body, err := fakeupstream.ReadBody(r)
		switch {
		case err != nil:
			c.fail(errTooLarge)
		case h == nil:
			c.fail(&apiError{status: http.StatusNotFound, typ: "not_found_error", message: "Not Found"})
		default:
			if err := s.checkHeaders(r); err != nil {
				c.fail(err)
				return
			}
			c.body = body
			h(c)
		}
	})
}

// injected answers a call given an error by Faults.
func (s *Server) injected(w http.ResponseWriter, r *http.Request, status int) {
	body, _ := fakeupstream.ReadBody(r)
	c := &call{w: w, r: r, reqID: s.NewID("req_fake")}
	c.fail(statusError(status, gjson.GetBytes(body, "model").Str))
}

// checkHeaders checks x-api-key, anthropic-version and the content type.
func (s *Server) checkHeaders(r *http.Request) error {
	key := r.Header.Get("X-Api-Key")
	switch {
	case key == "":
		return &apiError{status: http.StatusUnauthorized, typ: "authentication_error", message: "x-api-key header is required"}
	case subtle.ConstantTimeCompare([]byte(key), []byte(s.opt.Key)) != 1:
		return errAuth
	}
	switch v := r.Header.Get("Anthropic-Version"); v {
	case "2023-06-01", "2023-01-01":
	case "":
		return invalid("anthropic-version: header is required")
	default:
		return invalid("anthropic-version: invalid version %q", v)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return invalid("content-type: expected application/json")
	}
	return nil
}

// header sets the headers Anthropic sends on every response.
func (c *call) header(contentType string) http.Header {
	h := c.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Request-Id", c.reqID)
	h.Set("Anthropic-Organization-Id", "00000000-0000-4000-8000-00000000fa4e")
	return h
}

// json writes a 200 JSON response with the rate-limit headers of a
// success (fixture headers_200.http).
func (c *call) json(b []byte) {
	h := c.header("application/json")
	rateHeaders(h)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b)
}

// fail writes err as an Anthropic error response.
func (c *call) fail(err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = errAPI
	}
	h := c.header("application/json")
	for _, kv := range e.header {
		h.Set(kv[0], kv[1])
	}
	b := e.body(c.reqID)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	c.w.WriteHeader(e.status)
	c.w.Write(b)
}

func rateHeaders(h http.Header) {
	reset := time.Now().UTC().Add(time.Minute).Format(time.RFC3339)
	for _, kind := range [...]string{"requests", "tokens", "input-tokens", "output-tokens"} {
		h.Set("Anthropic-Ratelimit-"+kind+"-Limit", "100000")
		h.Set("Anthropic-Ratelimit-"+kind+"-Remaining", "99999")
		h.Set("Anthropic-Ratelimit-"+kind+"-Reset", reset)
	}
}
