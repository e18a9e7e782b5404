package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTrace: each request gets one SERVER span, the child of the
// client's traceparent when it sends one, named and attributed from its
// access record, with nothing of its headers, query or body.
func TestTrace(t *testing.T) {
	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	tests := []struct {
		name        string
		method      string
		traceparent bool
		handle      func(w http.ResponseWriter, rec *Record)
		wantName    string
		wantAttrs   map[string]any
		wantError   bool
	}{
		{"model request", "POST", true, func(w http.ResponseWriter, rec *Record) {
			rec.Route, rec.Model, rec.Operation = "POST /v1/chat/completions", "gpt-4o", "chat"
			rec.Deployment, rec.Attempts = "openai/gpt-4o", 2
			w.Write([]byte("{}"))
		}, "chat gpt-4o", map[string]any{"http.request.method": "POST", "http.response.status_code": int64(200),
			"http.route": "/v1/chat/completions", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
			"switchyard.deployment": "openai/gpt-4o", "switchyard.attempts": int64(2)}, false},
		{"other request", "GET", false, func(w http.ResponseWriter, rec *Record) {
			rec.Route, rec.Model = "GET /v1/models/{model...}", "gpt-4o" // a model named, no operation
			w.Write([]byte("{}"))
		}, "GET /v1/models/{model...}", map[string]any{"http.request.method": "GET", "http.response.status_code": int64(200),
			"http.route": "/v1/models/{model...}"}, false},
		{"refused with a type", "POST", true, func(w http.ResponseWriter, rec *Record) {
			rec.Route, rec.Model, rec.Operation, rec.ErrorType = "POST /v1/embeddings", "text-embedding-3-small", "embeddings", "rate_limit_error"
			w.WriteHeader(http.StatusTooManyRequests)
		}, "embeddings text-embedding-3-small", map[string]any{"http.request.method": "POST", "http.response.status_code": int64(429),
			"http.route": "/v1/embeddings", "gen_ai.operation.name": "embeddings", "gen_ai.request.model": "text-embedding-3-small",
			"error.type": "rate_limit_error"}, false},
		{"settled status", "POST", false, func(w http.ResponseWriter, rec *Record) {
			rec.Route, rec.Status = "dashboard POST /dashboard/keys", 499
			w.Write([]byte("ok"))
		}, "POST /dashboard/keys", map[string]any{"http.request.method": "POST", "http.response.status_code": int64(499),
			"http.route": "/dashboard/keys", "error.type": "499"}, false},
		{"panic", "GET", false, func(w http.ResponseWriter, rec *Record) { panic("boom") },
			"GET", map[string]any{"http.request.method": "GET", "http.response.status_code": int64(500), "error.type": "500"}, true},
		{"unknown method", "PURGE", false, func(w http.ResponseWriter, rec *Record) { w.WriteHeader(http.StatusMethodNotAllowed) },
			"HTTP", map[string]any{"http.request.method": "_OTHER", "http.response.status_code": int64(405), "error.type": "405"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rr))
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tt.handle(w, RecordFrom(r.Context())) })
			log := slog.New(slog.DiscardHandler)
			ts := httptest.NewServer(Chain(h, AccessLog(log), Trace(tp.Tracer("test"), propagation.TraceContext{}), Recover(log)))
			defer ts.Close()
			req, _ := http.NewRequest(tt.method, ts.URL+"/v1/x?api_key=sk-secret-query", strings.NewReader("secret body"))
			req.Header.Set("Authorization", "Bearer sk-secret-header")
			if tt.traceparent {
				req.Header.Set("traceparent", "00-"+clientTrace+"-"+clientSpan+"-01")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			spans := rr.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans ended, want 1", len(spans))
			}
			s := spans[0]
			got := map[string]any{}
			for _, kv := range s.Attributes() {
				got[string(kv.Key)] = kv.Value.AsInterface()
			}
			if diff := cmp.Diff(tt.wantAttrs, got); diff != "" || s.Name() != tt.wantName || s.SpanKind() != trace.SpanKindServer {
				t.Errorf("span %q (want %q), kind %v, attributes (-want +got):\n%s", s.Name(), tt.wantName, s.SpanKind(), diff)
			}
			if (s.Status().Code == codes.Error) != tt.wantError {
				t.Errorf("span status %v, want error: %t", s.Status(), tt.wantError)
			}
			wantParent := ""
			if tt.traceparent {
				wantParent = clientSpan
			}
			if p := s.Parent(); (wantParent == "") == p.IsValid() || (p.IsValid() &&
				(p.SpanID().String() != clientSpan || s.SpanContext().TraceID().String() != clientTrace || !p.IsRemote())) {
				t.Errorf("parent %v (trace %v), want the client's %q", p.SpanID(), s.SpanContext().TraceID(), wantParent)
			}
		})
	}
}

// TestTraceUnsampled: a request that is not sampled records no span, yet
// its context holds a valid span context for upstreams' traceparent.
func TestTraceUnsampled(t *testing.T) {
	rr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rr), sdktrace.WithSampler(sdktrace.NeverSample()))
	var sc trace.SpanContext
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc = trace.SpanContextFromContext(r.Context())
		RecordFrom(r.Context()).Route = "GET /v1/models"
	})
	log := slog.New(slog.DiscardHandler)
	ts := httptest.NewServer(Chain(h, AccessLog(log), Trace(tp.Tracer("test"), propagation.TraceContext{})))
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := len(rr.Ended()); n != 0 || !sc.IsValid() || sc.IsSampled() {
		t.Errorf("%d spans recorded, span context %v (valid %t, sampled %t), want none, valid, not sampled", n, sc, sc.IsValid(), sc.IsSampled())
	}
}
