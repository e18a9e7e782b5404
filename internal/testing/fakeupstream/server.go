// Package fakeupstream is the core the fake upstreams under it (openai,
// anthropic, gemini) share: a loopback server, the request log, the
// trigger words, an event stream writer and fault injection. Tests,
// benchmarks and e2e runs use it; the switchyard binary never does.
package fakeupstream

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what a fake tells the core when it starts.
type Config struct {
	// Name names the fake in panics, e.g. "fakeopenai".
	Name string
	// Latency is waited before every answer (simulated time to first
	// token), after the request is read and recorded.
	Latency time.Duration
	// Handler answers the requests. It reads the body with ReadBody.
	Handler http.Handler
	// Error writes an injected error (Faults.Errors) with status in the
	// provider's shape; the core sets the fault's Retry-After over it.
	Error func(w http.ResponseWriter, r *http.Request, status int)
}

// Server is a running fake upstream: what every fake does the same way.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:1234.
	URL string

	cfg     Config
	handler http.Handler
	srv     *http.Server
	ctx     context.Context // cancelled by Close; parent of every request context
	cancel  context.CancelFunc
	served  chan struct{} // closed when the serve loop returns
	seq     atomic.Int64  // source of IDs
	active  atomic.Int64  // requests being handled
	calls   atomic.Int64  // requests received
	faults  atomic.Pointer[faultState]
	counts  faultCounts

	mu sync.Mutex
	// mu guards the following.
	reqs []Request
}

// maxBody bounds a request body (all three providers allow about 32 MiB).
const maxBody = 32 << 20

// Start starts a server on 127.0.0.1:0 (loopback only). It panics if it
// cannot listen, like httptest.NewServer.
func Start(cfg Config) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("%s: listen: %v", cfg.Name, err))
	}
	s := &Server{URL: "http://" + ln.Addr().String(), cfg: cfg, served: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = http.HandlerFunc(s.serve)
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

// Calls returns how many requests the server has received, faulted or not.
func (s *Server) Calls() int64 { return s.calls.Load() }

// Handler returns the server's http.Handler, faults and recording
// included (for wrapping in httptest or serving elsewhere).
func (s *Server) Handler() http.Handler { return s.handler }

// NewID returns prefix and a sequence number, padded to 20 characters.
func (s *Server) NewID(prefix string) string {
	n := s.seq.Add(1)
	id := strconv.FormatInt(n, 36)
	return prefix + strings.Repeat("0", max(0, 20-len(id))) + id
}

// serve reads and records the request, waits out the latency, injects
// the call's fault if one is drawn, and hands the rest to the fake.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.active.Add(1)
	defer s.active.Add(-1)
	s.calls.Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	s.record(r, body)
	r.Body = &recordedBody{b: body, err: err}
	f := s.draw()
	if !Sleep(r.Context(), s.cfg.Latency+f.spike) {
		return
	}
	switch {
	case f.err != nil:
		s.counts.countError(f.err.Status)
		if f.err.RetryAfter != "" {
			w = &retryAfter{ResponseWriter: w, value: f.err.RetryAfter}
		}
		s.cfg.Error(w, r, f.err.Status)
		return
	case f.kind == faultReset:
		s.counts.resets.Add(1)
		Reset(w)
		return
	case f.kind != faultNone || f.drip > 0:
		fw, done := s.faultWriter(w, r, f)
		defer done()
		w, r = fw, r.WithContext(fw.ctx)
	}
	s.cfg.Handler.ServeHTTP(w, r)
}

// Sleep waits d or until ctx ends, and reports whether d elapsed.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Reset drops the connection with a TCP RST and no response (or no more
// of it). Where the connection cannot be taken over (HTTP/2, a recorder),
// it aborts the handler, the closest thing.
func Reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) // close with RST, not FIN
	}
	conn.Close()
}

// retryAfter sets the Retry-After header of an injected error over the
// one the fake sends (if any).
type retryAfter struct {
	http.ResponseWriter
	value string
}

// Unwrap lets http.ResponseController reach the connection.
func (w *retryAfter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *retryAfter) WriteHeader(code int) {
	w.Header().Set("Retry-After", w.value)
	w.ResponseWriter.WriteHeader(code)
}
