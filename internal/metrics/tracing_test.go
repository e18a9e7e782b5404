package metrics

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// collector receives OTLP exports over HTTP (protobuf or JSON) and gRPC
// and keeps the names of the spans and of their service.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	// mu guards the following.
	mu    sync.Mutex
	spans []string // "service/span"
}

func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, service+"/"+s.Name)
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// ServeHTTP takes POST /v1/traces in protobuf or JSON.
func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	var err error
	switch ct := r.Header.Get("Content-Type"); {
	case r.URL.Path != "/v1/traces":
		http.NotFound(w, r)
		return
	case ct == "application/json":
		err = protojson.Unmarshal(body, &req)
	default:
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.Export(r.Context(), &req)
	w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	if r.Header.Get("Content-Type") == "application/json" {
		w.Write([]byte("{}"))
	}
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.spans...)
}

// startGRPC serves c over gRPC on loopback and returns its URL.
func startGRPC(t *testing.T, c *collector) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, c)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

// TestTracingExports: a span made with the tracer reaches a collector
// over each protocol, flushed by Shutdown, under the configured service
// name.
func TestTracingExports(t *testing.T) {
	for _, protocol := range []string{config.ProtocolHTTPProtobuf, config.ProtocolHTTPJSON, config.ProtocolGRPC} {
		t.Run(protocol, func(t *testing.T) {
			c := &collector{}
			var endpoint string
			if protocol == config.ProtocolGRPC {
				endpoint = startGRPC(t, c)
			} else {
				ts := httptest.NewServer(c)
				t.Cleanup(ts.Close)
				endpoint = ts.URL + "/v1/traces"
			}
			cfg := config.Default().Tracing
			cfg.Enabled, cfg.Protocol, cfg.Endpoint, cfg.ServiceName = true, protocol, endpoint, "edge"
			var logs bytes.Buffer
			tr, err := NewTracing(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			_, sp := tr.Tracer().Start(context.Background(), "probe")
			sp.End()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tr.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if got := c.got(); len(got) != 1 || got[0] != "edge/probe" {
				t.Errorf("collector got %q, want [edge/probe]; log: %s", got, logs.String())
			}
		})
	}
}

// TestTracingCollectorDown: failed exports are logged on the app's
// logger, once a minute at most, and never fail the caller.
func TestTracingCollectorDown(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadRequest) // not retried
	}))
	defer ts.Close()
	var logs bytes.Buffer
	cfg := config.Default().Tracing
	cfg.Enabled, cfg.Endpoint = true, ts.URL+"/v1/traces"
	exp, err := newExporter(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	le := &loggedExporter{SpanExporter: exp, log: slog.New(slog.NewTextHandler(&logs, nil))}
	for range 3 {
		if err := le.ExportSpans(context.Background(), tracetest.SpanStubs{{Name: "lost"}}.Snapshots()); err != nil {
			t.Fatalf("ExportSpans: %v", err)
		}
	}
	if n := strings.Count(logs.String(), "trace export failed"); n != 1 || le.failures.Load() != 3 {
		t.Errorf("%d warnings for %d failures, want 1 for 3:\n%s", n, le.failures.Load(), logs.String())
	}
}

// TestSampler: the sampler follows its configured name and ratio.
func TestSampler(t *testing.T) {
	tests := []struct {
		sampler string
		ratio   float64
		want    string
	}{
		{"parentbased_traceidratio", 0.25, "ParentBased{root:TraceIDRatioBased{0.25}"},
		{"traceidratio", 0.5, "TraceIDRatioBased{0.5}"},
		{"always_on", 0.5, "AlwaysOnSampler"},
		{"always_off", 1, "AlwaysOffSampler"},
		{"parentbased_always_on", 0, "ParentBased{root:AlwaysOnSampler"},
		{"parentbased_always_off", 1, "ParentBased{root:AlwaysOffSampler"},
	}
	for _, tt := range tests {
		got := sampler(config.Tracing{Sampler: tt.sampler, SampleRatio: tt.ratio}).Description()
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s %v: sampler %s, want %s…", tt.sampler, tt.ratio, got, tt.want)
		}
	}
}
