package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTracingEnv: the OTEL_* variables win over the file, and the file's
// endpoint gives way to one the environment names (which the exporter
// reads itself).
func TestTracingEnv(t *testing.T) {
	file := "tracing:\n  enabled: true\n  protocol: http/json\n  endpoint: http://file-collector:4318/v1/traces\n  sample_ratio: 0.5\n"
	file1 := defaultTracing()
	file1.Enabled, file1.Protocol, file1.Endpoint, file1.SampleRatio = true, ProtocolHTTPJSON, "http://file-collector:4318/v1/traces", 0.5
	tests := []struct {
		name string
		file string
		env  map[string]string
		want func(*Tracing)
	}{
		{"defaults", "", nil, func(tr *Tracing) { *tr = defaultTracing() }},
		{"file only", file, nil, func(*Tracing) {}},
		{"protocol", file, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			func(tr *Tracing) { tr.Protocol = ProtocolGRPC }},
		{"traces protocol beats protocol", file, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, func(tr *Tracing) { tr.Protocol = ProtocolHTTPProtobuf }},
		{"env endpoint", file, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"},
			func(tr *Tracing) { tr.Endpoint = "" }},
		{"env traces endpoint", file, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://env:4318/v1/traces"},
			func(tr *Tracing) { tr.Endpoint = "" }},
		{"service name", file, map[string]string{"OTEL_SERVICE_NAME": "edge-gw"}, func(tr *Tracing) { tr.ServiceName = "edge-gw" }},
		{"sampler with ratio", file, map[string]string{"OTEL_TRACES_SAMPLER": "TraceIdRatio", "OTEL_TRACES_SAMPLER_ARG": "0.1"},
			func(tr *Tracing) { tr.Sampler, tr.SampleRatio = "traceidratio", 0.1 }},
		{"sampler without ratio ignores arg", file, map[string]string{"OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "7"},
			func(tr *Tracing) { tr.Sampler = "always_on" }},
		{"sdk disabled", file, map[string]string{"OTEL_SDK_DISABLED": "true"}, func(tr *Tracing) { tr.Enabled = false }},
		{"sdk not disabled", file, map[string]string{"OTEL_SDK_DISABLED": "false"}, func(*Tracing) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeConfig(t, tt.file)
			}
			c, err := Load(path, fakeEnv(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			want := file1
			tt.want(&want)
			if diff := cmp.Diff(want, c.Tracing); diff != "" {
				t.Errorf("tracing (-want +got):\n%s", diff)
			}
		})
	}
}
