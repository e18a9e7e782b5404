package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/metrics"
)

func TestHandlerBearerToken(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.LimitRefused("rpm")
	tests := []struct {
		name   string
		token  string // the handler's
		header string // Authorization sent; "" for none
		want   int
	}{
		{"no token configured", "", "", 200},
		{"no token configured, any header", "", "Bearer whatever", 200},
		{"missing", "s3cret", "", 401},
		{"wrong", "s3cret", "Bearer s3cre", 401},
		{"longer", "s3cret", "Bearer s3cret0", 401},
		{"other scheme", "s3cret", "Basic s3cret", 401},
		{"no scheme", "s3cret", "s3cret", 401},
		{"right", "s3cret", "Bearer s3cret", 200},
		{"scheme in lower case", "s3cret", "bearer s3cret", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(m.Handler(tt.token))
			defer ts.Close()
			req, _ := http.NewRequest("GET", ts.URL, nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			has := strings.Contains(string(body), `switchyard_limit_refusals_total{kind="rpm"} 1`)
			if has != (tt.want == 200) {
				t.Errorf("body has the metrics: %v, want %v:\n%.300s", has, tt.want == 200, body)
			}
			if tt.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// TestNil: with metrics off the request path holds a nil *Metrics, whose
// methods do nothing.
func TestNil(t *testing.T) {
	var m *metrics.Metrics
	everyEvent(m)
	rec := httptest.NewRecorder()
	m.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Errorf("nil metrics handler: status %d, want 404", rec.Code)
	}
}

// TestNoAllocs: counting a request whose series exist allocates nothing.
func TestNoAllocs(t *testing.T) {
	m := metrics.New(metrics.Options{Known: known})
	m.Request(chat)
	m.HTTPRequest("POST /v1/chat/completions", 200)
	allocs := testing.AllocsPerRun(100, func() {
		m.Request(chat)
		m.HTTPRequest("POST /v1/chat/completions", 200)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request, want 0", allocs)
	}
}

// BenchmarkRequest is what metrics add to one model request: its usage
// record counted and its HTTP request counted.
func BenchmarkRequest(b *testing.B) {
	m := metrics.New(metrics.Options{Known: known})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Request(chat)
			m.HTTPRequest("POST /v1/chat/completions", 200)
		}
	})
}
