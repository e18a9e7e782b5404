package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// BenchmarkAnswer times a plain answer (a Content-Length, 700 bytes) from
// one client through the shared middleware, its access log written to a
// pipe that another goroutine drains, as a process's stderr read by a
// collector: "answer-µs" is the mean time from sending the request to
// having read the answer (issue 18).
func BenchmarkAnswer(b *testing.B) {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, pr); close(drained) }()
	defer func() { pw.Close(); <-drained; pr.Close() }()
	body := strings.Repeat("x", 700)
	s := New(config.Default().Server, config.TLS{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		RecordFrom(r.Context()).Route = "POST /v1/chat/completions"
		w.Header()["Content-Type"] = []string{"application/json"}
		w.Header()["Content-Length"] = []string{strconv.Itoa(len(body))}
		io.WriteString(w, body)
	}), slog.New(NewLogHandler(pw, slog.LevelInfo)))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	client := ts.Client()
	var total time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		resp, err := client.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "answer-µs")
}
