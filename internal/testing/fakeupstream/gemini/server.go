package fakegemini

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// Options shape a fake server. The zero value is a well-behaved Gemini.
type Options struct {
	Key        string        // required x-goog-api-key; default "test-gemini-key"
	Latency    time.Duration // delay before the response headers
	TokenDelay time.Duration // delay between streamed events
	LF         bool          // frame stream events with "\n\n" instead of Google's "\r\n\r\n"
	Words      int           // words in generated answers (default 12)
}

// Server is a running fake Gemini API; the core gives it URL (the host
// base without the API version, e.g. http://127.0.0.1:1234), Close,
// Requests, Last, Active, Calls, Handler, SetFaults and Stats.
type Server struct {
	*fakeupstream.Server
	opt Options
}

const (
	// DefaultKey is the API key a server built without Options.Key wants.
	DefaultKey   = "test-gemini-key"
	defaultWords = 12
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
	s := &Server{opt: opt}
	s.Server = fakeupstream.Start(fakeupstream.Config{Name: "fakegemini", Latency: opt.Latency, Handler: s.routes(), Error: s.injected})
	return s
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

// handle checks the key and dispatches; the core has recorded the
// request and waited out Latency.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := fakeupstream.ReadBody(r)
	c := &call{s: s, w: w, r: r, body: body}
	if err != nil {
		c.fail(invalid("Request payload size exceeds the limit."))
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

// injected answers a call given an error by Faults.
func (s *Server) injected(w http.ResponseWriter, r *http.Request, status int) {
	model, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	c := &call{s: s, w: w, r: r}
	c.fail(statusError(status, model))
}

// json writes a 200 JSON response.
func (c *call) json(b []byte) {
	c.w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b)
}
