package openai_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/openai"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with what the client produces")

// TestMain fails the package if a test leaves goroutines behind (a stream
// not closed, a transport with live connections).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorded is one request the upstream received.
type recorded struct {
	Path   string
	Header http.Header
	Body   []byte
}

// upstream is a real HTTP server standing in for an OpenAI-compatible
// host: it records every request and answers with fixed bytes.
type upstream struct {
	*httptest.Server
	status int
	header http.Header
	body   []byte

	mu   sync.Mutex // guards reqs
	reqs []recorded
}

// newUpstream starts a server answering every request with status, header
// and body. An SSE body (Content-Type text/event-stream in header) is
// written one event at a time with a flush after each, as hosts do.
func newUpstream(t testing.TB, status int, header http.Header, body []byte) *upstream {
	t.Helper()
	u := &upstream{status: status, header: header, body: body}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

// replay starts a server answering 200 with a fixture from testdata.
func replay(t testing.TB, fixture string) *upstream {
	t.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	if strings.HasSuffix(fixture, ".sse") {
		h.Set("Content-Type", "text/event-stream")
	}
	return newUpstream(t, http.StatusOK, h, readFixture(t, fixture))
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.reqs = append(u.reqs, recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: b})
	u.mu.Unlock()
	for k, v := range u.header {
		w.Header()[k] = v
	}
	w.WriteHeader(u.status)
	if u.header.Get("Content-Type") != "text/event-stream" {
		w.Write(u.body)
		return
	}
	rc := http.NewResponseController(w)
	for ev := range bytes.SplitAfterSeq(u.body, []byte("\n\n")) {
		w.Write(ev)
		rc.Flush()
	}
}

// last returns the most recent request; the test fails if there was none.
func (u *upstream) last(t testing.TB) recorded {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatal("upstream received no request")
	}
	return u.reqs[len(u.reqs)-1]
}

// newClient returns a client for base (the upstream's URL plus "/v1")
// whose idle connections are closed when the test ends.
func newClient(t testing.TB, base string, opt openai.Options) *openai.Client {
	t.Helper()
	tr := provider.NewTransport(0)
	t.Cleanup(tr.CloseIdleConnections)
	if opt.Name == "" {
		opt.Name = "openai"
	}
	if opt.Type == "" {
		opt.Type = "openai"
	}
	opt.BaseURL = base + "/v1"
	opt.Transport = tr
	return openai.New(opt)
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with testdata/name.golden, or rewrites the file
// under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// drain reads a stream to its end and closes it. It returns the chunks
// and the error that ended it (nil after io.EOF).
func drain(t testing.TB, st provider.Stream) ([][]byte, error) {
	t.Helper()
	defer st.Close()
	var chunks [][]byte
	for {
		b, err := st.Next()
		if errors.Is(err, io.EOF) {
			return chunks, nil
		}
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, bytes.Clone(b))
	}
}

// asError returns err as a *provider.Error, failing the test otherwise.
func asError(t testing.TB, err error) *provider.Error {
	t.Helper()
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *provider.Error", err, err)
	}
	return pe
}

// testContext returns a context that ends with the test, bounded so a
// hang fails instead of stalling the suite.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
