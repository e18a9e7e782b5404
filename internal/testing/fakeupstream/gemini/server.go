package fakegemini

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options shape a fake server. The zero value is a well-behaved Gemini.
type Options struct {
	Key        string        // required x-goog-api-key; default "test-gemini-key"
	Latency    time.Duration // delay before the response headers
	TokenDelay time.Duration // delay between streamed events
	LF         bool          // frame stream events with "\n\n" instead of Google's "\r\n\r\n"
	Words      int           // words in generated answers (default 12)
}

// Request is a request as the fake received it.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// Server is a running fake Gemini API.
type Server struct {
	// URL is the host base without the API version, e.g.
	// http://127.0.0.1:1234.
	URL string

	opt    Options
	srv    *http.Server
	ctx    context.Context // cancelled by Close; parent of every request context
	cancel context.CancelFunc
	served chan struct{} // closed when the serve loop returns

	mu sync.Mutex
	// mu guards the following.
	reqs []Request
}

const (
	// DefaultKey is the API key a server built without Options.Key wants.
	DefaultKey   = "test-gemini-key"
	defaultWords = 12
	maxBody      = 32 << 20
	maxRecorded  = 10000
)

// Start starts a server on 127.0.0.1:0. It panics if it cannot listen,
// like httptest.NewServer.
func Start(opt Options) *Server {
	if opt.Key == "" {
		opt.Key = DefaultKey
	}
	if opt.Words <= 0 {
		opt.Words = defaultWords
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakegemini: listen: %v", err))
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opt: opt, served: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.srv = &http.Server{
		Handler:           s.routes(),
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
// streaming ones included) and waits for them and the serve loop.
func (s *Server) Close() {
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.served
}

// Requests returns copies of the requests received so far (at most the
// last 10000).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
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
	return Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header.Clone(), Body: append([]byte(nil), r.Body...)}
}

func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	if len(s.reqs) > maxRecorded {
		n := copy(s.reqs, s.reqs[len(s.reqs)-maxRecorded:])
		clear(s.reqs[n:])
		s.reqs = s.reqs[:n]
	}
}

// Gemini puts the method after a colon in the last segment
// (models/gemini-2.5-flash:generateContent); a ServeMux wildcard matches
// the whole segment, which is split here.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/{modelAction}", s.handle)
	mux.HandleFunc("/", s.handle)
	return mux
}

// call is one request being answered.
type call struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	model  string
	body   []byte
	method string
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	s.record(r, body)
	c := &call{s: s, w: w, r: r, body: body}
	if err != nil {
		c.fail(invalid("Request payload size exceeds the limit."))
		return
	}
	if !c.sleep(s.opt.Latency) {
		return
	}
	if err := s.authorize(r); err != nil {
		c.fail(err)
		return
	}
	ma := r.PathValue("modelAction")
	i := strings.LastIndexByte(ma, ':')
	if i <= 0 {
		c.fail(&apiError{code: 404, status: "NOT_FOUND", message: "The requested URL " + r.URL.Path + " was not found on this server."})
		return
	}
	c.model, c.method = ma[:i], ma[i+1:]
	c.dispatch()
}

func (c *call) dispatch() {
	kind, known := modelKind(c.model)
	handlers := map[string]func(){
		"generateContent":       func() { c.generate(false) },
		"streamGenerateContent": func() { c.generate(true) },
		"embedContent":          c.embedOne,
		"batchEmbedContents":    c.embedBatch,
	}
	h, ok := handlers[c.method]
	switch {
	case !ok:
		c.fail(&apiError{code: 404, status: "NOT_FOUND", message: fmt.Sprintf("Method %q is not found.", c.method)})
	case !known || kind != kindOf(c.method):
		c.fail(notFound(c.model, c.method))
	default:
		h()
	}
}

// authorize wants the key in x-goog-api-key (or ?key=): none is Google's
// 403, a wrong one its 400 API_KEY_INVALID.
func (s *Server) authorize(r *http.Request) error {
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	switch {
	case key == "":
		return errNoKey
	case subtle.ConstantTimeCompare([]byte(key), []byte(s.opt.Key)) != 1:
		return errBadKey
	}
	return nil
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

// json writes a 200 JSON response.
func (c *call) json(b []byte) {
	c.w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b)
}
