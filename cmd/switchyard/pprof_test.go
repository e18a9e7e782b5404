//go:build benchprofile

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPprof: the profiling build serves net/http/pprof's index and
// profiles on a loopback address, and refuses any other address.
// Run with go test -tags benchprofile ./cmd/switchyard -run Pprof.
func TestPprof(t *testing.T) {
	if _, err := listenPprof("0.0.0.0:0"); err == nil {
		t.Error("listenPprof(0.0.0.0:0) succeeded; want a loopback address only")
	}
	ln, err := listenPprof("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: pprofMux()}
	go srv.Serve(ln)
	defer srv.Close()
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/block?debug=1", "/debug/pprof/mutex?debug=1"} {
		resp, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d: %s", path, resp.StatusCode, b)
		}
		if path == "/debug/pprof/" && !strings.Contains(string(b), "goroutine") {
			t.Errorf("GET %s: no profile index: %.200s", path, b)
		}
	}
}
