package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// syncBuffer is a log sink safe for concurrent writes, which tells
// waiters of each write.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // a value after a write; made by the first
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.signal() <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

// signal returns the channel writes signal on; s.mu is held.
func (s *syncBuffer) signal() chan struct{} {
	if s.written == nil {
		s.written = make(chan struct{}, 1)
	}
	return s.written
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor returns the logs once ok says they hold what a test reads:
// the access log line is written after a complete answer is sent (issue
// 18), so a client may have it before the line.
func (s *syncBuffer) waitFor(t *testing.T, what string, ok func(logs string) bool) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		logs, written := s.b.String(), s.signal()
		s.mu.Unlock()
		if ok(logs) {
			return logs
		}
		select {
		case <-written:
		case <-deadline:
			t.Fatalf("no %s in the logs after 10s: %s", what, logs)
		}
	}
}

// logLine decodes the one JSON line logged, waiting for it.
func logLine(t *testing.T, logs *syncBuffer) map[string]any {
	t.Helper()
	s := logs.waitFor(t, "access log line", func(s string) bool { return strings.Contains(s, `"msg":"request"`) })
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &line); err != nil {
		t.Fatalf("log line %q: %v", s, err)
	}
	return line
}

func testServer(t *testing.T, h http.Handler, mut func(*config.Server)) (*httptest.Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	cfg := config.Default().Server
	if mut != nil {
		mut(&cfg)
	}
	s := New(cfg, config.TLS{}, h, slog.New(slog.NewJSONHandler(logs, nil)))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts, logs
}

func TestRequestID(t *testing.T) {
	ts, _ := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, RecordFrom(r.Context()).ID)
	}), nil)
	tests := []struct {
		name, sent string
		echoed     bool
	}{
		{"none", "", false},
		{"client id", "my-trace-123", true},
		{"too long", strings.Repeat("a", 129), false},
		{"quote", `a"b`, false},
		{"space", "a b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL, nil)
			if tt.sent != "" {
				req.Header.Set("X-Request-Id", tt.sent)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := resp.Header.Get("X-Request-Id")
			if got != string(body) {
				t.Errorf("header %q differs from the ID the handler saw %q", got, body)
			}
			if tt.echoed && got != tt.sent {
				t.Errorf("X-Request-Id = %q, want the client's %q", got, tt.sent)
			}
			if !tt.echoed && (!strings.HasPrefix(got, "req_") || len(got) != 36) {
				t.Errorf("X-Request-Id = %q, want a generated req_ ID", got)
			}
		})
	}
}

func TestRecover(t *testing.T) {
	ts, logs := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		panic("boom")
	}), nil)
	resp, err := http.Get(ts.URL + "/early")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || string(body) != internalErrorBody {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), `"panic":"boom"`) {
		t.Errorf("panic not logged: %s", logs)
	}
	// After the headers went out the connection is cut instead.
	resp, err = http.Get(ts.URL + "/late")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("a panic after the response started did not abort it")
	}
}

func TestAccessLog(t *testing.T) {
	ts, logs := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := RecordFrom(r.Context())
		rec.Route, rec.Model, rec.Account = "POST /v1/x", "gpt-4o", "acct_1"
		rec.Deployment, rec.Attempts = "east/gpt-4o", 2
		w.WriteHeader(404)
	}), nil)
	req, _ := http.NewRequest("POST", ts.URL+"/v1/x", strings.NewReader(`{"messages":"secret prompt"}`))
	req.Header.Set("Authorization", "Bearer sk-switchyard-SECRETSECRETSECRETSECRETSECRET12")
	req.Header.Set("X-Request-Id", "trace-1")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	line := logLine(t, logs)
	for k, want := range map[string]any{"id": "trace-1", "route": "POST /v1/x", "model": "gpt-4o", "status": 404.0, "account": "acct_1",
		"deployment": "east/gpt-4o", "attempts": 2.0} {
		if line[k] != want {
			t.Errorf("log %s = %v, want %v", k, line[k], want)
		}
	}
	if _, ok := line["latency_ms"]; !ok {
		t.Error("no latency in the access log")
	}
	if s := logs.String(); strings.Contains(s, "SECRET") || strings.Contains(s, "secret prompt") {
		t.Errorf("access log leaks the key or the prompt: %s", s)
	}
}

// TestAccessLogSettledStatus checks that the access log says the status
// the handler settled on, not the one written: issue 13, where a stream
// the client abandoned was 200 in the log and 499 in its usage record.
func TestAccessLogSettledStatus(t *testing.T) {
	tests := []struct {
		name    string
		written int
		settled int
		want    float64
	}{
		{"abandoned stream", 200, 499, 499},
		{"stream failed after it started", 200, 502, 502},
		{"not settled", 201, 0, 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, logs := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.written)
				RecordFrom(r.Context()).Status = tt.settled
			}), nil)
			resp, err := ts.Client().Get(ts.URL + "/v1/x")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := logLine(t, logs)["status"]; got != tt.want {
				t.Errorf("logged status %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	ts, _ := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(204)
	}), func(c *config.Server) { c.MaxBodyBytes = 1024 })
	for _, tt := range []struct {
		size    int
		chunked bool
		want    int
	}{{1024, false, 204}, {1025, false, 413}, {5000, true, 413}, {100, true, 204}} {
		var body io.Reader = bytes.NewReader(make([]byte, tt.size))
		if tt.chunked {
			body = io.MultiReader(body) // unknown length: sent chunked
		}
		resp, err := ts.Client().Post(ts.URL, "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%d bytes (chunked %v): %d, want %d", tt.size, tt.chunked, resp.StatusCode, tt.want)
		}
		if tt.want == 413 && !tt.chunked && !strings.Contains(string(raw), `"code":"request_too_large"`) {
			t.Errorf("413 body %s", raw)
		}
	}
}

func TestCORS(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	none, _ := testServer(t, ok, nil)
	some, _ := testServer(t, ok, func(c *config.Server) { c.CORSOrigins = []string{"https://app.example.com"} })
	get := func(url, origin, method string) http.Header {
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	if h := get(none.URL, "https://app.example.com", "GET"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers sent with no allow-list")
	}
	if h := get(some.URL, "https://evil.example.com", "GET"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers sent to an origin not on the list")
	}
	if h := get(some.URL, "https://app.example.com", "OPTIONS"); h.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight from an allowed origin: %v", h)
	}
}

// TestGracefulShutdown: a request in flight when shutdown starts finishes;
// one that outlives the grace period is cut.
func TestGracefulShutdown(t *testing.T) {
	for _, tt := range []struct {
		name     string
		handler  time.Duration
		grace    time.Duration
		complete bool
	}{
		{"finishes within grace", 300 * time.Millisecond, 5 * time.Second, true},
		{"cut after grace", 10 * time.Second, 200 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				w.(http.Flusher).Flush()
				close(started)
				select {
				case <-time.After(tt.handler):
					io.WriteString(w, "done")
				case <-r.Context().Done():
				}
			})
			addr, cancel, served := serving(t, tt.grace, h)
			body := make(chan string, 1)
			go func() {
				resp, err := http.Get("http://" + addr)
				if err != nil {
					body <- "error"
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body <- string(b)
			}()
			<-started
			cancel()
			got := <-body
			if (got == "done") != tt.complete {
				t.Errorf("response %q, want complete=%v", got, tt.complete)
			}
			select {
			case <-served:
			case <-time.After(15 * time.Second):
				t.Fatal("Serve did not return")
			}
			if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				t.Error("still accepting connections after shutdown")
			}
		})
	}
}

func TestTLSAndHSTS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	cfg := config.Default().Server
	cfg.Listen = "127.0.0.1:0"
	s := New(cfg, config.TLS{CertFile: certFile, KeyFile: keyFile},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), slog.New(slog.DiscardHandler))
	addr, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get("https://" + addr.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Errorf("no HSTS header under TLS: %v", resp.Header)
	}
}

// TestIsLoopback decides the plaintext warning without binding anything
// but loopback.
func TestIsLoopback(t *testing.T) {
	for _, tt := range []struct {
		ip   string
		want bool
	}{{"127.0.0.1", true}, {"127.8.9.1", true}, {"::1", true}, {"0.0.0.0", false}, {"::", false}, {"192.0.2.7", false}} {
		if got := isLoopback(&net.TCPAddr{IP: net.ParseIP(tt.ip), Port: 8080}); got != tt.want {
			t.Errorf("isLoopback(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

func selfSigned(t *testing.T, dir string) (string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// TestRecordContext: the context the access log gives handlers (its own
// type since issue 18) carries the record and its parent's values, is
// done with its parent, and lets contexts derived from it hang on the
// parent's cancellation, not on a goroutine each.
func TestRecordContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "parent's"))
	defer cancel()
	var ctx context.Context
	h := AccessLog(slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx = r.Context()
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil).WithContext(parent))
	rec, ok := RecordOf(ctx)
	if !ok || !strings.HasPrefix(rec.ID, "req_") || RecordFrom(ctx) != rec {
		t.Fatalf("RecordOf = %+v, %v; want the request's record", rec, ok)
	}
	if got := ctx.Value(key{}); got != "parent's" {
		t.Errorf("Value(parent's key) = %v", got)
	}
	before := runtime.NumGoroutine()
	var children []context.Context
	for range 100 {
		child, stop := context.WithTimeout(ctx, time.Hour)
		defer stop()
		children = append(children, child)
	}
	if n := runtime.NumGoroutine() - before; n >= 50 {
		t.Errorf("100 derived contexts started %d goroutines", n)
	}
	cancel()
	for i, child := range children {
		select {
		case <-child.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("child %d not done when the request's context was cancelled", i)
		}
	}
	if ctx.Err() != context.Canceled {
		t.Errorf("Err = %v, want context.Canceled", ctx.Err())
	}
}
