package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// served keeps what an Observer is told.
type served struct {
	mu  sync.Mutex // guards got
	got []string
}

func (o *served) Served(rec *Record, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("%s %d", rec.Route, status))
}

// Issue 17: the metrics hear of every request with the status the access
// log says, the settled one included, and of the requests in flight.
func TestObserve(t *testing.T) {
	obs := &served{}
	var s *Server
	var inFlight atomic.Int64
	s = New(config.Default().Server, config.TLS{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Store(s.InFlight())
		switch r.URL.Path {
		case "/v1/x":
			RecordFrom(r.Context()).Route = "POST /v1/x"
			w.WriteHeader(200)
			RecordFrom(r.Context()).Status = 499
		case "/auth":
			RecordFrom(r.Context()).Route = "GET /auth"
			w.WriteHeader(401)
		default:
			http.NotFound(w, r)
		}
	}), slog.New(slog.DiscardHandler))
	s.Observe(obs)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	for _, path := range []string{"/v1/x", "/auth", "/nowhere"} {
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := []string{"POST /v1/x 499", "GET /auth 401", " 404"}
	if diff := cmp.Diff(want, obs.got); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	if n := inFlight.Load(); n != 1 {
		t.Errorf("in flight while serving: %d, want 1", n)
	}
	if n := s.InFlight(); n != 0 {
		t.Errorf("in flight after: %d, want 0", n)
	}
}
