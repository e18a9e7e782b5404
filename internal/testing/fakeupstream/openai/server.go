// Package fakeopenai serves a strict, deterministic fake of the OpenAI API
// for the gateway's tests and benchmarks.
package fakeopenai

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

// Options shape a fake server. The zero value is a well-behaved OpenAI.
type Options struct {
	Key           string        // required bearer key; default "test-upstream-key"
	Latency       time.Duration // delay before the response headers (simulated time to first token)
	TokenDelay    time.Duration // delay between streamed chunks
	ToolsOnly     bool          // a host that supports only tools: 400 on functions/function_call
	NoStreamUsage bool          // never sends usage in streams, even when include_usage is asked
	GroqUsage     bool          // puts stream usage in x_groq.usage on the final chunk instead
	FloatOnly     bool          // embeddings ignore encoding_format and always return floats
	Words         int           // words in generated answers (default 12)
	// CachedTokens is how many of each chat request's prompt tokens the
	// fake reports as served from its prompt cache (at most the prompt),
	// in usage.prompt_tokens_details.cached_tokens.
	CachedTokens int
}

// Request is a request as the fake received it.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server is a running fake upstream.
type Server struct {
	// URL is the base URL including /v1, e.g. http://127.0.0.1:1234/v1.
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
	maxBody      = 32 << 20
	// maxRecorded bounds the request log so long benchmarks don't grow memory.
	maxRecorded = 10000
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
		panic(fmt.Sprintf("fakeopenai: listen: %v", err))
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", opt: opt, served: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = s.routes()
	s.srv = &http.Server{
		Handler:           s.handler,
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
	// Handlers end at once (their context is cancelled). Shutdown would
	// wait up to 5s for a connection a client dialled but never used
	// (net/http counts a new connection as active that long), so it gets
	// a short grace and then the rest are closed.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.served
}

// Active returns how many requests are being handled now: a test can see
// that a client's disconnect reached the upstream.
func (s *Server) Active() int { return int(s.active.Load()) }

// Handler returns the http.Handler (for wrapping in httptest or serving elsewhere).
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
		// Compact now and then; Requests reports only the newest maxRecorded.
		n := copy(s.reqs, s.reqs[len(s.reqs)-maxRecorded:])
		clear(s.reqs[n:])
		s.reqs = s.reqs[:n]
	}
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/chat/completions", s.endpoint(true, s.chat))
	mux.Handle("POST /v1/completions", s.endpoint(true, s.completions))
	mux.Handle("POST /v1/embeddings", s.endpoint(true, s.embeddings))
	mux.Handle("GET /v1/models", s.endpoint(false, s.listModels))
	mux.Handle("GET /v1/models/{model...}", s.endpoint(false, s.getModel))
	mux.Handle("/", s.endpoint(false, nil)) // OpenAI's "Invalid URL" 404
	return mux
}

// call is one request being answered.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	body  []byte
	reqID string
	start time.Time
}

// endpoint records the request, waits out Latency, then checks the key and
// (for POST) the content type before handing the call to h.
func (s *Server) endpoint(post bool, h func(*call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.active.Add(1)
		defer s.active.Add(-1)
		c := &call{w: w, r: r, start: time.Now(), reqID: s.newID("req_fake")}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		s.record(r, body)
		if err != nil {
			c.fail(&apiError{status: http.StatusRequestEntityTooLarge, message: "Request body too large or unreadable.", typ: "invalid_request_error"})
			return
		}
		if !c.sleep(s.opt.Latency) {
			return
		}
		if h == nil || r.URL.Path == "/v1/models/" {
			c.fail(&apiError{status: 404, message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path), typ: "invalid_request_error"})
			return
		}
		if err := s.authorize(r); err != nil {
			c.fail(err)
			return
		}
		if post {
			if err := checkContentType(r); err != nil {
				c.fail(err)
				return
			}
		}
		c.body = body
		h(c)
	})
}

func (s *Server) authorize(r *http.Request) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return errNoKey
	}
	scheme, key, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		return errNoKey
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.opt.Key)) != 1 {
		return errBadKey(key)
	}
	return nil
}

func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return badRequest("", "", "Invalid Content-Type header (%s), expected application/json.", ct)
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

// header sets the headers OpenAI sends on every response.
func (c *call) header(contentType string) http.Header {
	h := c.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Request-Id", c.reqID)
	h.Set("Openai-Version", "2020-10-01")
	h.Set("Openai-Processing-Ms", strconv.FormatInt(time.Since(c.start).Milliseconds(), 10))
	return h
}

// rateHeaders are the x-ratelimit-* headers of a success (headers_200_chat.http).
func rateHeaders(h http.Header) {
	h.Set("X-Ratelimit-Limit-Requests", "10000")
	h.Set("X-Ratelimit-Limit-Tokens", "10000000")
	h.Set("X-Ratelimit-Remaining-Requests", "9999")
	h.Set("X-Ratelimit-Remaining-Tokens", "9999979")
	h.Set("X-Ratelimit-Reset-Requests", "6ms")
	h.Set("X-Ratelimit-Reset-Tokens", "0s")
}

// json writes a 200 JSON response.
func (c *call) json(b []byte) {
	h := c.header("application/json")
	rateHeaders(h)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b)
}

// fail writes err as an OpenAI error response.
func (c *call) fail(err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = errServer
	}
	h := c.header("application/json; charset=utf-8")
	for _, kv := range e.header {
		h.Set(kv[0], kv[1])
	}
	b := e.body()
	h.Set("Content-Length", strconv.Itoa(len(b)))
	c.w.WriteHeader(e.status)
	c.w.Write(b)
}
