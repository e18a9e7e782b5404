// Package fakeopenai serves a strict, deterministic fake of the OpenAI API
// for the gateway's tests and benchmarks.
package fakeopenai

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
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

// Server is a running fake upstream; the core gives it Close, Requests,
// Last, Active, Calls, Handler, SetFaults and Stats.
type Server struct {
	*fakeupstream.Server
	// URL is the base URL including /v1, e.g. http://127.0.0.1:1234/v1.
	URL string

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
	s.Server = fakeupstream.Start(fakeupstream.Config{Name: "fakeopenai", Latency: opt.Latency, Handler: s.routes(), Error: s.injected})
	s.URL = s.Server.URL + "/v1"
	return s
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/chat/completions", s.endpoint(true, s.chat))
	mux.Handle("POST /v1/completions", s.endpoint(true, s.completions))
	mux.Handle("POST /v1/embeddings", s.endpoint(true, s.embeddings))
	mux.Handle("POST /v1/responses", s.endpoint(true, s.responses))
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

// endpoint checks the key and (for POST) the content type before handing
// the call to h; the core has recorded the request and waited out Latency.
func (s *Server) endpoint(post bool, h func(*call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, start: time.Now(), reqID: s.NewID("req_fake")}
		body, err := fakeupstream.ReadBody(r)
		if err != nil {
			c.fail(&apiError{status: http.StatusRequestEntityTooLarge, message: "Request body too large or unreadable.", typ: "invalid_request_error"})
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

// injected answers a call given an error by Faults.
func (s *Server) injected(w http.ResponseWriter, r *http.Request, status int) {
	body, _ := fakeupstream.ReadBody(r)
	c := &call{w: w, r: r, start: time.Now(), reqID: s.NewID("req_fake")}
	c.fail(statusError(status, gjson.GetBytes(body, "model").Str))
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
