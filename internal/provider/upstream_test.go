package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
				ctx = WithWaitHook(ctx, func() error { time.Sleep(tt.slowHook); return nil })
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
