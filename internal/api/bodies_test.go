package api

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/server"
)

func TestBodyReader(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 300<<10)
	tests := []struct {
		name     string
		size     int64
		pooled   int // capacity of the pooled buffer
		budget   int64
		wantErr  error
		wantHeld int64
	}{
		{"declared length", int64(len(body)), 0, 1 << 20, nil, int64(len(body)) + 1},
		{"declared length fits the pooled buffer", int64(len(body)), 1 << 20, 1 << 20, nil, 0},
		{"chunked, copied to its exact length", -1, 0, 1 << 20, nil, int64(len(body))},
		{"chunked fits the pooled buffer", -1, 1 << 20, 1 << 20, nil, 0},
		{"declared length over the budget", int64(len(body)), 0, 200 << 10, errBodiesBusy, 0},
		{"chunked over the budget", -1, 0, 200 << 10, errBodiesBusy, 0},
		{"chunked and its copy over the budget", -1, 0, 600 << 10, errBodiesBusy, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budget := &bodyBytes{max: tt.budget}
			rd := &bodyReader{budget: budget}
			got, err := rd.read(make([]byte, 0, tt.pooled), iotest.HalfReader(bytes.NewReader(body)), tt.size)
			switch {
			case !errors.Is(err, tt.wantErr):
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			case err == nil && !bytes.Equal(got, body):
				t.Errorf("read %d bytes, want %d", len(got), len(body))
			}
			if rd.held != tt.wantHeld || budget.used.Load() != rd.held {
				t.Errorf("held %d (budget used %d), want %d", rd.held, budget.used.Load(), tt.wantHeld)
			}
		})
	}
}

// Issue 13: 16 concurrent 30 MiB chunked bodies took the heap past 1.2 GB.
// Bodies take their buffers from a process-wide budget; past it a request
// gets 503 with Retry-After, and the budget comes back when a request ends.
func TestBodyBudget(t *testing.T) {
	const budget = 1 << 20
	h := New(Options{Auth: fakeAuth{}, Log: slog.New(slog.DiscardHandler), MaxBodyBytesInFlight: budget})
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

	// A chunked body that stops after 300 KiB holds five 64 KiB pieces.
	pr, pw := io.Pipe()
	first := make(chan *http.Response, 1)
	go func() { first <- post(pr) }()
	pw.Write([]byte(pad(400 << 10)[:300<<10]))
	for deadline := time.Now().Add(5 * time.Second); h.bodies.used.Load() < 300<<10; {
		if time.Now().After(deadline) {
			t.Fatalf("the first body holds %d bytes, want 320 KiB", h.bodies.used.Load())
		}
		time.Sleep(time.Millisecond)
	}
	resp := post(strings.NewReader(pad(800 << 10)))
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
	if resp := post(strings.NewReader(pad(800 << 10))); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("second body once the first is done: status %d, want 400", resp.StatusCode)
	}
}
