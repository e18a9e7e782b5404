package provider

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 13: a stream that had started had no bound on the silence between
// its chunks. Every adapter opens streams through Upstream.Open.
func TestStreamIdleTimeout(t *testing.T) {
	const idle = 100 * time.Millisecond
	tests := []struct {
		name string
		// send writes the stream after its first chunk.
		send     func(w io.Writer, flush func(), stop <-chan struct{})
		slowRead time.Duration // the gateway's pause between reads
		slowHook time.Duration // its wait hook's, flushing to a slow client
		wantIdle bool
	}{
		{"silent upstream is cut", func(w io.Writer, flush func(), stop <-chan struct{}) { <-stop }, 0, 0, true},
		{"keep-alives hold it open", func(w io.Writer, flush func(), stop <-chan struct{}) {
			for range 6 {
				select {
				case <-stop:
					return
				case <-time.After(idle / 3):
				}
				w.Write([]byte(": ping\n\n"))
				flush()
			}
		}, 0, 0, false},
		{"a slow reader is not an idle upstream", func(w io.Writer, flush func(), stop <-chan struct{}) {
			w.Write([]byte("data: 2\n\n"))
		}, 3 * idle, 0, false},
		// Issue 18: the hook runs before the idle timer is armed.
		{"a slow wait hook is not an idle upstream", func(w io.Writer, flush func(), stop <-chan struct{}) {
			w.Write([]byte("data: 2\n\n"))
		}, 0, 3 * idle, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rc := http.NewResponseController(w)
				w.Write([]byte("data: 1\n\n"))
				rc.Flush()
				tt.send(w, func() { rc.Flush() }, r.Context().Done())
			}))
			defer ts.Close()
			u := &Upstream{Name: "up", Client: ts.Client(), Header: http.Header{}, Timeout: time.Second, IdleTimeout: idle}
			// The test's own bound, so a missing idle timeout fails, not hangs.
			ctx, stop := context.WithTimeout(context.Background(), 3*time.Second)
			defer stop()
			if tt.slowHook > 0 {
				ctx = WithWaitHook(ctx, WaitFunc(func() error { time.Sleep(tt.slowHook); return nil }))
			}
			resp, cancel, err := u.Open(ctx, ts.URL, []byte("{}"), "")
			if err != nil {
				t.Fatal(err)
			}
			defer cancel()
			defer resp.Body.Close()
			start := time.Now()
			var readErr error
			buf := make([]byte, 64)
			for readErr == nil {
				if tt.slowRead > 0 {
					time.Sleep(tt.slowRead) // writing to a slow client
				}
				_, readErr = resp.Body.Read(buf)
			}
			var pe *Error
			gotIdle := errors.As(readErr, &pe) && pe.Kind == KindTimeout && errors.Is(readErr, ErrStreamIdle)
			if gotIdle != tt.wantIdle {
				t.Fatalf("read error %v (after %v), want idle timeout: %v", readErr, time.Since(start), tt.wantIdle)
			}
			if tt.wantIdle && time.Since(start) > 2*time.Second {
				t.Errorf("cut after %v, want about %v", time.Since(start), idle)
			}
			if tt.wantIdle && FromTransport(ctx, "up", readErr).Kind != KindTimeout {
				t.Errorf("FromTransport(%v) is not a timeout", readErr)
			}
		})
	}
}

// TestUpstreamHeader: each request carries the headers every request
// carries, with a call's extra headers over them, and neither a call's
// extras nor the headers it adds (Accept, X-Request-Id) reach the shared
// headers or the next call: a request's header shares the shared
// header's values (issue 18).
func TestUpstreamHeader(t *testing.T) {
	var got []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		w.Write([]byte("{}"))
	}))
	defer ts.Close()
	shared := http.Header{"Content-Type": {"application/json"}, "X-Beta": {"a", "b"}}
	u := &Upstream{Name: "up", Client: ts.Client(), Header: shared.Clone(), Timeout: 5 * time.Second}
	calls := []struct {
		extra     http.Header
		requestID string
		stream    bool
	}{
		{http.Header{"X-Beta": {"c"}, "X-More": {"d"}}, "req_1", false},
		{nil, "", true},
		{http.Header{"X-More": {"e"}}, "req_2", false},
	}
	for _, c := range calls {
		if c.stream {
			resp, cancel, err := u.OpenHeader(context.Background(), ts.URL, []byte("{}"), c.requestID, c.extra)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			cancel()
			continue
		}
		if _, _, err := u.CallHeader(context.Background(), ts.URL, []byte("{}"), c.requestID, c.extra); err != nil {
			t.Fatal(err)
		}
	}
	// A stream asks for no compression (issue 18); a plain call lets the
	// transport ask for gzip and decompress.
	want := []map[string][]string{
		{"X-Beta": {"c"}, "X-More": {"d"}, "X-Request-Id": {"req_1"}, "Accept": nil, "Accept-Encoding": {"gzip"}},
		{"X-Beta": {"a", "b"}, "X-More": nil, "X-Request-Id": nil, "Accept": {"text/event-stream"}, "Accept-Encoding": {"identity"}},
		{"X-Beta": {"a", "b"}, "X-More": {"e"}, "X-Request-Id": {"req_2"}, "Accept": nil, "Accept-Encoding": {"gzip"}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d", len(got), len(want))
	}
	for i, w := range want {
		for k, vs := range w {
			if g := got[i][k]; !slices.Equal(g, vs) {
				t.Errorf("request %d: %s %q, want %q", i+1, k, g, vs)
			}
		}
		if ct := got[i].Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d: Content-Type %q", i+1, ct)
		}
	}
	if !reflect.DeepEqual(u.Header, shared) {
		t.Errorf("shared headers changed: %v, want %v", u.Header, shared)
	}
}

// A stream asks for no compression, so the transport does not decompress
// it: an upstream (or a proxy) that compresses it anyway fails the call
// as an unreadable answer, instead of feeding compressed bytes to the
// event parser.
func TestStreamCompressedAnyway(t *testing.T) {
	const events = "data: {\"a\":1}\n\ndata: [DONE]\n\n"
	tests := []struct {
		encoding string // the answer's Content-Encoding; gzip compresses it
		ok       bool
	}{
		{"", true},
		{"identity", true},
		{"Identity", true},
		{"gzip", false},
		{"br", false},
		{"identity, gzip", false},
	}
	for _, tt := range tests {
		t.Run(tt.encoding, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				if tt.encoding != "" {
					w.Header().Set("Content-Encoding", tt.encoding)
				}
				if !strings.Contains(tt.encoding, "gzip") {
					w.Write([]byte(events))
					return
				}
				zw := gzip.NewWriter(w)
				zw.Write([]byte(events))
				zw.Close()
			}))
			defer ts.Close()
			u := &Upstream{Name: "up", Client: ts.Client(), Timeout: 5 * time.Second}
			resp, cancel, err := u.Open(context.Background(), ts.URL+"/v1/chat/completions", []byte("{}"), "req_1")
			if !tt.ok {
				var pe *Error
				if !errors.As(err, &pe) || pe.Kind != KindUnavailable || pe.Path != "/v1/chat/completions" ||
					!strings.Contains(err.Error(), "unreadable upstream answer") || !strings.Contains(err.Error(), strconv.Quote(tt.encoding)) {
					t.Errorf("Open: %v, want an unreadable upstream answer naming Content-Encoding %q", err, tt.encoding)
				}
				if err == nil {
					resp.Body.Close()
					cancel()
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cancel()
			defer resp.Body.Close()
			if b, err := io.ReadAll(resp.Body); err != nil || string(b) != events {
				t.Errorf("body %q, %v; want %q", b, err, events)
			}
		})
	}
}
