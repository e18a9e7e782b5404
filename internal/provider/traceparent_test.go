package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// TestTraceparent: an upstream request carries the W3C traceparent of
// the span in its context, and none when its context has no span
// (tracing off), whatever the client sent along.
func TestTraceparent(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	client := http.Header{"Traceparent": {"00-11111111111111111111111111111111-2222222222222222-01"}}
	tests := []struct {
		name  string
		ctx   context.Context
		extra http.Header
		want  string
	}{
		{"traced", trace.ContextWithSpanContext(context.Background(), sc), nil,
			"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"traced, the client's replaced", trace.ContextWithSpanContext(context.Background(), sc), client,
			"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"untraced", context.Background(), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Get("Traceparent")
				w.Write([]byte("{}"))
			}))
			defer ts.Close()
			u := &Upstream{Name: "up", Client: ts.Client(), Header: http.Header{}, Timeout: 5 * time.Second}
			if _, _, err := u.CallHeader(tt.ctx, ts.URL, []byte("{}"), "", tt.extra); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("traceparent %q, want %q", got, tt.want)
			}
		})
	}
}
