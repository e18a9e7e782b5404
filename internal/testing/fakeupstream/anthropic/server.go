// Package fakeanthropic serves a strict, deterministic fake of Anthropic's
// Messages API for the gateway's tests.
package fakeanthropic

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// Request is a request as the fake received it.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server is a running fake upstream.
type Server struct {
	// URL is the host base without /v1, e.g. http://127.0.0.1:1234.
	URL string

	opt     Options
	handler http.Handler
	srv     *http.Server
	ctx     context.Context // cancelled by Close; parent of every request context
	cancel  context.CancelFunc
	served  chan struct{} // closed when the serve loop returns
	seq     atomic.Int64  // source of IDs
	active  atomic.Int64  // requests being handled

	mu sync.Mutex
	// mu guards the following.
	reqs []Request
}

const (
	defaultKey   = "test-upstream-key"
	defaultWords = 12
	maxBody      = 32 << 20 // Anthropic's request size limit
	maxRecorded  = 10000
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakeanthropic: listen: %v", err))
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opt: opt, served: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.Handle("POST /v1/messages", s.endpoint(s.messages))
	mux.Handle("/", s.endpoint(nil))
	s.handler = mux
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	go func() {
		defer close(s.served)
		s.srv.Serve(ln)
	}()
	return s
}

// Close stops the server: it cancels in-flight requests (hanging and
// streaming ones included) and waits for them and the serve loop to end.
func (s *Server) Close() {
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.served
}

// Active returns how many requests are being handled now.
func (s *Server) Active() int { return int(s.active.Load()) }

// Handler returns the http.Handler (for serving elsewhere).
func (s *Server) Handler() http.Handler { return s.handler }

// Requests returns copies of the requests received so far (at most the
// last 10000).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	recent := s.reqs[max(0, len(s.reqs)-maxRecorded):]
	out := make([]Request, len(recent))
	for i, r := range recent {
		out[i] = r.clone()
	}
	return out
}

// Last returns the most recent request (zero Request if none).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return Request{}
	}
	return s.reqs[len(s.reqs)-1].clone()
}

func (r Request) clone() Request {
	return Request{Method: r.Method, Path: r.Path, Header: r.Header.Clone(), Body: append([]byte(nil), r.Body...)}
}

func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if len(s.reqs) >= 2*maxRecorded {
		n := copy(s.reqs, s.reqs[len(s.reqs)-maxRecorded:])
		clear(s.reqs[n:])
		s.reqs = s.reqs[:n]
	}
}

// call is one request being answered.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	body  []byte
	reqID string
}

// endpoint records the request, waits out Latency, then checks the key,
// the API version and the content type before handing the call to h.
func (s *Server) endpoint(h func(*call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.active.Add(1)
		defer s.active.Add(-1)
		c := &call{w: w, r: r, reqID: s.newID("req_fake")}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		s.record(r, body)
		switch {
		case err != nil:
			c.fail(errTooLarge)
		case !c.sleep(s.opt.Latency):
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

func (s *Server) newID(prefix string) string {
	n := s.seq.Add(1)
	id := strconv.FormatInt(n, 36)
	return prefix + strings.Repeat("0", max(0, 20-len(id))) + id
}

// sleep waits d or until the request ends, and reports whether d elapsed.
func (c *call) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.r.Context().Done():
		return false
	}
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
