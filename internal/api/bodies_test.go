package api

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/server"
)

func TestFill(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 300<<10)
	tests := []struct {
		name        string
		size, limit int64
		budget      int
		wantErr     error
		wantHolds   []int
	}{
		{"declared length", int64(len(body)), 0, 1 << 20, nil, []int{len(body) + 1}},
		{"chunked doubles", -1, 0, 1 << 20, nil, []int{64 << 10, 128 << 10, 256 << 10, 512 << 10}},
		{"chunked capped by the limit", -1, 400 << 10, 1 << 20, nil, []int{64 << 10, 128 << 10, 256 << 10, 400<<10 + 1}},
		{"budget refuses", -1, 0, 200 << 10, errBodiesBusy, []int{64 << 10, 128 << 10, 256 << 10}},
		{"over the limit", -1, 100 << 10, 1 << 20, &http.MaxBytesError{}, []int{64 << 10, 100<<10 + 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var holds []int
			hold := func(c int) bool { holds = append(holds, c); return c <= tt.budget }
			got, err := fill(nil, iotest.HalfReader(bytes.NewReader(body)), tt.size, tt.limit, hold)
			var tooBig *http.MaxBytesError
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("fill: %v", err)
			case tt.wantErr == errBodiesBusy && !errors.Is(err, errBodiesBusy),
				tt.wantErr != nil && tt.wantErr != errBodiesBusy && !errors.As(err, &tooBig):
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			case err == nil && !bytes.Equal(got, body):
				t.Errorf("read %d bytes, want %d", len(got), len(body))
			}
			if !slices.Equal(holds, tt.wantHolds) {
				t.Errorf("holds %v, want %v", holds, tt.wantHolds)
			}
		})
	}
}

// Issue 13: 16 concurrent 30 MiB chunked bodies took the heap past 1.2 GB.
// Bodies take their buffers from a process-wide budget; past it a request
// gets 503 with Retry-After, and the budget comes back when a request ends.
func TestBodyBudget(t *testing.T) {
	const budget = 1 << 20
	h := New(Options{Auth: fakeAuth{}, Log: slog.New(slog.DiscardHandler), MaxBodyBytes: 32 << 20, MaxBodyBytesInFlight: budget})
	ts := httptest.NewServer(server.New(config.Default().Server, config.TLS{}, h, slog.New(slog.DiscardHandler)).Handler())
	t.Cleanup(ts.Close)
	post := func(body io.Reader) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", body)
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	pad := func(n int) string { return `{"model":"m","pad":"` + strings.Repeat("a", n) + `"}` }

	// A chunked body that stops half-way holds 512 KiB of the budget.
	pr, pw := io.Pipe()
	first := make(chan *http.Response, 1)
	go func() { first <- post(pr) }()
	pw.Write([]byte(pad(400 << 10)[:300<<10]))
	for deadline := time.Now().Add(5 * time.Second); h.bodies.used.Load() < 512<<10; {
		if time.Now().After(deadline) {
			t.Fatalf("the first body holds %d bytes, want 512 KiB", h.bodies.used.Load())
		}
		time.Sleep(time.Millisecond)
	}
	resp := post(strings.NewReader(pad(600 << 10)))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("second body over the budget: status %d, Retry-After %q; want 503, 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	pw.Write([]byte(pad(400 << 10)[300<<10:]))
	pw.Close()
	if resp := <-first; resp.StatusCode != http.StatusBadRequest {
		t.Errorf("first body: status %d, want 400 (no messages)", resp.StatusCode)
	}
	if n := h.bodies.used.Load(); n != 0 {
		t.Errorf("%d bytes still held after both requests ended", n)
	}
	if resp := post(strings.NewReader(pad(600 << 10))); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("second body once the first is done: status %d, want 400", resp.StatusCode)
	}
}
