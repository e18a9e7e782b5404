package server

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// TestServeWaitsForCutHandlers: a handler that outlives the grace period
// is cancelled with ErrShutdown, can still write its last bytes to the
// client, and Serve returns only after it has returned (so that what it
// records at the end is not lost to a meter stopped under it).
func TestServeWaitsForCutHandlers(t *testing.T) {
	var finished atomic.Bool
	var cause atomic.Value
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte("first\n"))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		cause.Store(context.Cause(r.Context()))
		w.Write([]byte("last\n"))
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond) // bookkeeping after the cut
		finished.Store(true)
	})
	addr, cancel, served := serving(t, 100*time.Millisecond, h)
	lines := make(chan []string, 1)
	go func() {
		resp, err := http.Get("http://" + addr)
		if err != nil {
			lines <- nil
			return
		}
		defer resp.Body.Close()
		var got []string
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	<-started
	cancel()
	select {
	case <-served:
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
	if !finished.Load() {
		t.Error("Serve returned before the cut handler did")
	}
	if c, _ := cause.Load().(error); !errors.Is(c, ErrShutdown) {
		t.Errorf("the handler's context cause is %v, want ErrShutdown", c)
	}
	if got := <-lines; len(got) != 2 || got[1] != "last" {
		t.Errorf("the client read %q, want the line written after the cut too", got)
	}
}

// serving serves h on a loopback port with the given shutdown grace and
// returns its address, the cancel that starts the shutdown, and where
// Serve's result arrives.
func serving(t *testing.T, grace time.Duration, h http.Handler) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	cfg := config.Default().Server
	cfg.Listen, cfg.ShutdownGrace = "127.0.0.1:0", grace
	s := New(cfg, config.TLS{}, h, slog.New(slog.DiscardHandler))
	addr, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	return addr.String(), cancel, served
}
