package app_test

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP collector on loopback: it decodes the
// ExportTraceServiceRequests posted to /v1/traces and keeps their spans.
type otlpReceiver struct {
	URL string
	// mu guards the following.
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string // each export's service.name
}

func startReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(rc.export))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/v1/traces"
	return rc
}

func (rc *otlpReceiver) export(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces with a protobuf body", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		rc.services = append(rc.services, stringAttr(rs.GetResource().GetAttributes(), "service.name"))
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// waitSpans polls until the receiver holds n spans of trace id, and
// returns them.
func (rc *otlpReceiver) waitSpans(t *testing.T, traceID string, n int) []*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got []*tracepb.Span
		rc.mu.Lock()
		for _, s := range rc.spans {
			if hex.EncodeToString(s.TraceId) == traceID {
				got = append(got, s)
			}
		}
		rc.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) != n {
				t.Fatalf("trace %s: %d spans exported, want %d: %v", traceID, len(got), n, spanNames(got))
			}
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func spanNames(spans []*tracepb.Span) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	return names
}

// attrs flattens a span's attributes to strings (ints and floats
// formatted by the protobuf's text).
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch v.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.GetStringValue()
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = strconv.FormatInt(v.GetIntValue(), 10)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = strconv.FormatFloat(v.GetDoubleValue(), 'g', -1, 64)
		default:
			m[kv.Key] = v.String()
		}
	}
	return m
}

func stringAttr(kvs []*commonpb.KeyValue, key string) string { return attrs(kvs)[key] }

// waitNamed polls until the receiver holds a span named name, and
// returns it.
func (rc *otlpReceiver) waitNamed(t *testing.T, name string) *tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		for _, s := range rc.spans {
			if s.Name == name {
				rc.mu.Unlock()
				return s
			}
		}
		rc.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no span named %q exported", name)
	return nil
}
