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

func TestUpstreamBounds(t *testing.T) {
	const m = time.Minute
	tests := []struct {
		name                 string
		timeout, firstByte   time.Duration // the upstream's
		ctx                  Timeouts      // the deployment's, through WithTimeouts
		wantFirst, wantTotal time.Duration
	}{
		{"first byte defaults to the total", 10 * m, 0, Timeouts{}, 10 * m, 10 * m},
		{"provider's own", 10 * m, m, Timeouts{}, m, 10 * m},
		{"first byte past the total is the total", 2 * m, 5 * m, Timeouts{}, 2 * m, 2 * m},
		{"deployment shortens", 10 * m, m, Timeouts{FirstByte: 5 * time.Second, Total: 2 * m}, 5 * time.Second, 2 * m},
		{"deployment lengthens", 10 * m, m, Timeouts{FirstByte: 3 * m, Total: 20 * m}, 3 * m, 20 * m},
		{"deployment total under the provider's first byte", 10 * m, 5 * m, Timeouts{Total: m}, m, m},
		{"connect and idle are ignored", 10 * m, m, Timeouts{Connect: time.Second, Idle: time.Second}, m, 10 * m},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &Upstream{Timeout: tt.timeout, FirstByteTimeout: tt.firstByte}
			first, total := u.bounds(WithTimeouts(context.Background(), tt.ctx))
			if first != tt.wantFirst || total != tt.wantTotal {
				t.Errorf("bounds = %s, %s; want %s, %s", first, total, tt.wantFirst, tt.wantTotal)
			}
		})
	}
	u := &Upstream{Timeout: 10 * m, FirstByteTimeout: m, IdleTimeout: 2 * m, ConnectTimeout: 3 * time.Second}
	if got, want := u.Timeouts(), (Timeouts{Connect: 3 * time.Second, FirstByte: m, Idle: 2 * m, Total: 10 * m}); got != want {
		t.Errorf("Timeouts() = %+v, want %+v", got, want)
	}
}

// A stream whose headers do not come within the first-byte timeout fails
// with KindTimeout, long before the total; the total timeout bounds a
// started stream too, however lively (issue 15). A deployment's timeouts
// (WithTimeouts) replace the provider's.
func TestOpenTimeouts(t *testing.T) {
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices the client leave
		<-r.Context().Done()        // never answers
	}))
	defer silent.Close()
	lively := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for {
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
			rc.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}))
	defer lively.Close()
	// Headers at once, then nothing: a stream whose first event never
	// comes is cut at the first byte's bound, not the total's.
	mute := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	defer mute.Close()
	const short, long = 100 * time.Millisecond, time.Hour
	tests := []struct {
		name             string
		srv              *httptest.Server
		firstByte, total time.Duration // the provider's
		ctx              Timeouts
	}{
		{"provider's first byte", silent, short, long, Timeouts{}},
		{"deployment's first byte", silent, long, long, Timeouts{FirstByte: short}},
		{"provider's total", lively, 0, short, Timeouts{}},
		{"deployment's total", lively, 0, long, Timeouts{Total: short}},
		{"first byte after the headers", mute, short, long, Timeouts{}},
		{"deployment's first byte after the headers", mute, long, long, Timeouts{FirstByte: short}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &Upstream{Name: "up", Client: tt.srv.Client(), Header: http.Header{},
				Timeout: tt.total, FirstByteTimeout: tt.firstByte, IdleTimeout: long}
			// The test's own bound: the call must fail before it.
			ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			resp, cancel, err := u.Open(WithTimeouts(ctx, tt.ctx), tt.srv.URL, []byte("{}"), "")
			if err == nil {
				defer cancel()
				defer resp.Body.Close()
				_, err = io.Copy(io.Discard, resp.Body)
			}
			var pe *Error
			timedOut := errors.As(err, &pe) && pe.Kind == KindTimeout || errors.Is(err, context.DeadlineExceeded)
			if !timedOut || ctx.Err() != nil {
				t.Fatalf("%v (test context: %v), want a timeout before the test's bound", err, ctx.Err())
			}
			if tt.srv == mute && !errors.Is(err, ErrFirstByteTimeout) {
				t.Errorf("%v, want ErrFirstByteTimeout", err)
			}
			if started := tt.srv != silent; started != (resp != nil) {
				t.Errorf("stream started: %t, want %t", resp != nil, started)
			}
		})
	}
}
