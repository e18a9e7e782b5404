package server

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// wire counts the bytes a server writes on its connections, each before
// it is written: once a client has read a response, the count is at
// least what it read.
type wire struct {
	net.Listener
	n atomic.Int64
}

func (l *wire) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &wireConn{c, &l.n}, nil
}

type wireConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *wireConn) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Conn.Write(p)
}

// moments notes how many bytes were on the wire when each thing after
// the handler happened: the access log line, the trace span's end, the
// metrics' observation.
type moments struct {
	wire  *wire
	mu    sync.Mutex // guards at
	at    map[string]int64
	noted chan struct{} // a value after a note
	logs  syncBuffer
}

func (m *moments) note(what string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at[what] = m.wire.n.Load()
	select {
	case m.noted <- struct{}{}:
	default:
	}
}

// wait returns when what was noted, and the bytes sent then.
func (m *moments) wait(t *testing.T, what string) int64 {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		m.mu.Lock()
		n, ok := m.at[what]
		m.mu.Unlock()
		if ok {
			return n
		}
		select {
		case <-m.noted:
		case <-deadline:
			t.Fatalf("no %s after 10s", what)
		}
	}
}

// Write takes the log's lines; the access log's is noted.
func (m *moments) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"msg":"request"`)) {
		m.note("log")
	}
	return m.logs.Write(p)
}

func (m *moments) Served(*Record, int) { m.note("observed") }

func (m *moments) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (m *moments) OnEnd(sdktrace.ReadOnlySpan)                     { m.note("span") }
func (m *moments) Shutdown(context.Context) error                  { return nil }
func (m *moments) ForceFlush(context.Context) error                { return nil }

// serveNoted serves h as New does, with tracing, on a listener that
// counts what it writes; errs takes net/http's own log.
func serveNoted(t *testing.T, h http.Handler) (*httptest.Server, *moments, *syncBuffer) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	m := &moments{wire: &wire{Listener: ts.Listener}, at: map[string]int64{}, noted: make(chan struct{}, 1)}
	ts.Listener = m.wire
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(m))
	s := New(config.Default().Server, config.TLS{}, h, slog.New(slog.NewJSONHandler(m, nil)),
		Trace(tp.Tracer("test"), propagation.TraceContext{}))
	s.Observe(m)
	errs := &syncBuffer{}
	ts.Config.Handler, ts.Config.ErrorLog = s.Handler(), log.New(errs, "", 0)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, m, errs
}

// Issue 18: a complete answer with a Content-Length reaches the client
// before the access log line is written, the trace span ends and the
// metrics hear of it; any other answer goes as it did, when the handler
// chain has returned, headers and framing unchanged.
func TestAnswerBeforeLog(t *testing.T) {
	big := strings.Repeat("x", 5000) // past net/http's buffers: part goes out while the handler runs
	tests := []struct {
		name   string
		method string
		handle func(w http.ResponseWriter, r *http.Request)
		early  bool   // sent before the log line
		status int    // the client's
		length int64  // resp.ContentLength
		te     string // Transfer-Encoding
		body   string
	}{
		{"complete with a length", "POST", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5")
			w.WriteHeader(200)
			io.WriteString(w, "hello")
		}, true, 200, 5, "", "hello"},
		{"complete with a length, status implied", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		}, true, 200, 5, "", "hello"},
		{"empty with a length", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(201)
		}, true, 201, 0, "", ""},
		{"long with a length", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5000")
			io.WriteString(w, big)
		}, true, 200, 5000, "", big},
		{"error answer", "POST", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
		}, false, 429, 33, "", `{"error":{"message":"slow down"}}`},
		{"short without a length", "GET", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hi")
		}, false, 200, 2, "", "hi"},
		{"nothing written", "GET", func(w http.ResponseWriter, r *http.Request) {}, false, 200, 0, "", ""},
		{"long without a length", "GET", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, big)
		}, false, 200, -1, "chunked", big},
		{"flushed without a length", "GET", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: 1\n\n")
			http.NewResponseController(w).Flush()
			io.WriteString(w, "data: 2\n\n")
		}, false, 200, -1, "chunked", "data: 1\n\ndata: 2\n\n"},
		{"HEAD", "HEAD", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		}, false, 200, 5, "", ""},
		{"204", "DELETE", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(204)
		}, false, 204, 0, "", ""},
		{"304", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(304)
		}, false, 304, 0, "", ""},
		{"panic", "GET", func(w http.ResponseWriter, r *http.Request) { panic("boom") },
			false, 500, int64(len(internalErrorBody)), "", internalErrorBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, m, errs := serveNoted(t, http.HandlerFunc(tt.handle))
			req, _ := http.NewRequest(tt.method, ts.URL+"/v1/x", strings.NewReader(`{"model":"m"}`))
			client := ts.Client()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || resp.ContentLength != tt.length || strings.Join(resp.TransferEncoding, ",") != tt.te ||
				string(body) != tt.body {
				t.Errorf("got %d, length %d, transfer encoding %q, body %.40q; want %d, %d, %q, %.40q",
					resp.StatusCode, resp.ContentLength, resp.TransferEncoding, body, tt.status, tt.length, tt.te, tt.body)
			}
			sent := m.wire.n.Load() // all of it: the client has read it
			for _, what := range []string{"span", "log", "observed"} {
				if at := m.wait(t, what); (at == sent) != tt.early {
					t.Errorf("%s with %d of the answer's %d bytes sent, want all of them sent: %t", what, at, sent, tt.early)
				}
			}
			if s := errs.String(); s != "" {
				t.Errorf("net/http logged %s", s)
			}
			if logs := m.logs.String(); tt.name == "panic" && !strings.Contains(logs, `"panic":"boom"`) {
				t.Errorf("panic not logged: %s", logs)
			}
		})
	}
}

// A handler that panics after its complete answer is written aborts the
// connection, as before issue 18: the client gets no answer and no access
// log line is written.
func TestAnswerThenPanic(t *testing.T) {
	ts, m, _ := serveNoted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "hello")
		panic("boom")
	}))
	resp, err := ts.Client().Get(ts.URL)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("a panic after a complete answer did not abort it")
	}
	logs := m.logs.waitFor(t, "panic", func(s string) bool { return strings.Contains(s, `"panic":"boom"`) })
	if strings.Contains(logs, `"msg":"request"`) {
		t.Errorf("an access log line for an aborted answer: %s", logs)
	}
}

// A hijacked connection is the handler's: nothing is flushed on it after
// the handler returns, even when it wrote a complete answer before taking
// it over (a flush then would use the writer net/http let go of).
func TestAnswerHijacked(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before bool // a complete answer written before the hijack
	}{{"hijacked", false}, {"hijacked after a complete answer", true}} {
		t.Run(tt.name, func(t *testing.T) {
			ts, m, errs := serveNoted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.before {
					w.Header().Set("Content-Length", "5")
					io.WriteString(w, "hello")
				}
				conn, buf, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				defer conn.Close()
				if !tt.before {
					buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nraw")
					buf.Flush()
				}
			}))
			resp, err := ts.Client().Get(ts.URL)
			if !tt.before {
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != "raw" {
					t.Errorf("body %q, want the handler's own answer", body)
				}
			} else if err == nil {
				resp.Body.Close()
			}
			m.logs.waitFor(t, "access log line", func(s string) bool { return strings.Contains(s, `"msg":"request"`) })
			if s := errs.String(); s != "" {
				t.Errorf("net/http logged %s", s)
			}
		})
	}
}

// flushes is a ResponseWriter that counts the flushes it is asked for.
type flushes struct {
	h       http.Header
	flushed int
}

func (f *flushes) Header() http.Header         { return f.h }
func (f *flushes) Write(p []byte) (int, error) { return len(p), nil }
func (f *flushes) WriteHeader(int)             {}
func (f *flushes) Flush()                      { f.flushed++ }

// TestFinish: finish flushes once, and only a complete HTTP/1 answer
// with a body and a Content-Length.
func TestFinish(t *testing.T) {
	tests := []struct {
		name     string
		proto    int
		method   string
		status   int
		length   string
		written  int64
		hijacked bool
		want     int
	}{
		{"complete", 1, "POST", 200, "5", 5, false, 1},
		{"empty", 1, "GET", 200, "0", 0, false, 1},
		{"error with a length", 1, "POST", 429, "5", 5, false, 1},
		{"short", 1, "GET", 200, "5", 4, false, 0},
		{"no length", 1, "GET", 200, "", 5, false, 0},
		{"bad length", 1, "GET", 200, "five", 5, false, 0},
		{"nothing written", 1, "GET", 0, "0", 0, false, 0},
		{"HEAD", 1, "HEAD", 200, "5", 5, false, 0},
		{"204", 1, "GET", 204, "0", 0, false, 0},
		{"304", 1, "GET", 304, "0", 0, false, 0},
		{"HTTP/2", 2, "POST", 200, "5", 5, false, 0},
		{"hijacked", 1, "GET", 200, "5", 5, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &flushes{h: http.Header{}}
			if tt.length != "" {
				f.h.Set("Content-Length", tt.length)
			}
			sw := &statusWriter{ResponseWriter: f, status: tt.status, bytes: tt.written, hijacked: tt.hijacked}
			r := httptest.NewRequest(tt.method, "/", nil)
			r.ProtoMajor = tt.proto
			sw.finish(r)
			sw.finish(r)
			if f.flushed != tt.want {
				t.Errorf("flushed %d times, want %d", f.flushed, tt.want)
			}
		})
	}
}

// TestAccessLogLine pins the access log line byte for byte, in both
// formats, its time and latency fixed.
func TestAccessLogLine(t *testing.T) {
	fixed := func(groups []string, a slog.Attr) slog.Attr {
		switch {
		case len(groups) == 0 && a.Key == slog.TimeKey:
			return slog.Time(a.Key, time.Date(2026, 11, 26, 9, 30, 0, 123e6, time.UTC))
		case len(groups) == 0 && a.Key == "latency_ms" && a.Value.Kind() == slog.KindFloat64:
			return slog.Float64(a.Key, 0.081)
		}
		return a
	}
	h := lineHandler()
	for _, tt := range []struct {
		format, path, want string
	}{
		{"json", "/ok", `{"time":"2026-11-26T09:30:00.123Z","level":"INFO","msg":"request","id":"trace-1","method":"POST",` +
			`"route":"POST /v1/chat/completions","model":"gpt-4o","status":200,"bytes":5,"latency_ms":0.081,"account":"acct_1",` +
			`"deployment":"east/gpt-4o","attempts":2}` + "\n"},
		{"json", "/fail", `{"time":"2026-11-26T09:30:00.123Z","level":"ERROR","msg":"request","id":"trace-1","method":"POST",` +
			`"route":"POST /v1/chat/completions","model":"gpt-4o","status":502,"bytes":5,"latency_ms":0.081,"account":"acct_1",` +
			`"deployment":"east/gpt-4o","attempts":2}` + "\n"},
		{"text", "/ok", `time=2026-11-26T09:30:00.123Z level=INFO msg=request id=trace-1 method=POST ` +
			`route="POST /v1/chat/completions" model=gpt-4o status=200 bytes=5 latency_ms=0.081 account=acct_1 ` +
			`deployment=east/gpt-4o attempts=2` + "\n"},
	} {
		t.Run(tt.format+tt.path, func(t *testing.T) {
			logs := &syncBuffer{}
			opts := &slog.HandlerOptions{ReplaceAttr: fixed}
			var lh slog.Handler = slog.NewJSONHandler(logs, opts)
			if tt.format == "text" {
				lh = slog.NewTextHandler(logs, opts)
			}
			ts := httptest.NewServer(Chain(h, AccessLog(slog.New(lh))))
			defer ts.Close()
			postTraced(t, ts, tt.path)
			got := logs.waitFor(t, "access log line", func(s string) bool { return strings.HasSuffix(s, "\n") })
			if got != tt.want {
				t.Errorf("line\n%s want\n%s", got, tt.want)
			}
		})
	}
}
