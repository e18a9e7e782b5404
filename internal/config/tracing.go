package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Tracing configures OpenTelemetry traces (docs/observability.md). The
// standard OTEL_* environment variables win over the file: see
// tracingFromEnv for the ones read here; the exporter reads the others
// (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE,
// _INSECURE) itself.
type Tracing struct {
	// Enabled turns tracing on. Default false: no tracer, no spans, no
	// traceparent sent upstream. OTEL_SDK_DISABLED=true turns it off.
	Enabled bool `yaml:"enabled"`
	// Exporter is where spans go: "otlp", the only one. Default "otlp".
	Exporter string `yaml:"exporter"`
	// Protocol is the OTLP transport: "http/protobuf", "http/json" or
	// "grpc". Default "http/protobuf". OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
	// else OTEL_EXPORTER_OTLP_PROTOCOL, override it.
	Protocol string `yaml:"protocol"`
	// Endpoint is the collector's URL as the exporter takes it: for HTTP
	// the whole URL, path included ("http://collector:4318/v1/traces");
	// for gRPC scheme, host and port ("http://collector:4317"; https
	// means TLS). Default empty: the exporter's default,
	// http://localhost:4318/v1/traces or localhost:4317. It is ignored
	// when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
	// OTEL_EXPORTER_OTLP_ENDPOINT is set.
	Endpoint string `yaml:"endpoint"`
	// SampleRatio is the share of traces started here that are kept,
	// from 0 to 1; a request that arrives with a traceparent follows its
	// caller's decision. Default 1. OTEL_TRACES_SAMPLER_ARG overrides it
	// for the ratio samplers.
	SampleRatio float64 `yaml:"sample_ratio"`
	// Sampler is the sampler's name as OTEL_TRACES_SAMPLER gives it
	// (always_on, always_off, traceidratio, parentbased_always_on,
	// parentbased_always_off, parentbased_traceidratio). Default
	// parentbased_traceidratio, with SampleRatio. It has no file key.
	Sampler string `yaml:"-"`
	// ServiceName is the service.name of the spans. Default "switchyard";
	// OTEL_SERVICE_NAME overrides it. It has no file key.
	ServiceName string `yaml:"-"`
}

// Tracing's fixed values.
const (
	ProtocolHTTPProtobuf = "http/protobuf"
	ProtocolHTTPJSON     = "http/json"
	ProtocolGRPC         = "grpc"
)

// samplers are the names OTEL_TRACES_SAMPLER may take, and whether each
// reads a ratio.
var samplers = map[string]bool{
	"always_on": false, "always_off": false, "traceidratio": true,
	"parentbased_always_on": false, "parentbased_always_off": false, "parentbased_traceidratio": true,
}

// SamplerUsesRatio reports whether the sampler named s samples by
// SampleRatio.
func SamplerUsesRatio(s string) bool { return samplers[s] }

func defaultTracing() Tracing {
	return Tracing{Exporter: "otlp", Protocol: ProtocolHTTPProtobuf, SampleRatio: 1,
		Sampler: "parentbased_traceidratio", ServiceName: "switchyard"}
}

// tracingFromEnv applies the OTEL_* variables that choose what the
// exporter cannot choose for itself: the protocol, the sampler, whether
// the SDK is off; and drops the file's endpoint when the environment
// names one, which the exporter then reads. An error names the variable.
func tracingFromEnv(t *Tracing, getenv func(string) string) error {
	if v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); v != "" {
		off, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("OTEL_SDK_DISABLED: expected true or false, got %q", v)
		}
		t.Enabled = t.Enabled && !off
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			if msg := oneOf(v, ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC); msg != "" {
				return fmt.Errorf("%s: %s", k, msg)
			}
			t.Protocol = v
		}
	}
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		t.Endpoint = ""
	}
	if v := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); v != "" {
		t.ServiceName = v
	}
	return samplerFromEnv(t, getenv)
}

// samplerFromEnv applies OTEL_TRACES_SAMPLER and its argument.
func samplerFromEnv(t *Tracing, getenv func(string) string) error {
	v := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	if v == "" {
		return nil
	}
	if _, ok := samplers[v]; !ok {
		return fmt.Errorf("OTEL_TRACES_SAMPLER: expected always_on, always_off, traceidratio, parentbased_always_on, "+
			"parentbased_always_off or parentbased_traceidratio, got %q", v)
	}
	t.Sampler = v
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	if !samplers[v] || arg == "" {
		return nil
	}
	r, err := strconv.ParseFloat(arg, 64)
	if err != nil || r < 0 || r > 1 {
		return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got %q", arg)
	}
	t.SampleRatio = r
	return nil
}

// validate names the first tracing key that is wrong.
func (t Tracing) validate() error {
	checks := []struct {
		key string
		err string
	}{
		{"tracing.exporter", oneOf(t.Exporter, "otlp")},
		{"tracing.protocol", oneOf(t.Protocol, ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC)},
		{"tracing.endpoint", endpointErr(t.Endpoint)},
		{"tracing.sample_ratio", ratioErr(t.SampleRatio)},
	}
	for _, ch := range checks {
		if ch.err != "" {
			return fmt.Errorf("%s: %s", ch.key, ch.err)
		}
	}
	return nil
}

func endpointErr(e string) string {
	if e == "" {
		return ""
	}
	u, err := url.Parse(e)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("expected a URL such as http://collector:4318/v1/traces, got %q", e)
	}
	return ""
}

func ratioErr(r float64) string {
	if !(r >= 0 && r <= 1) {
		return fmt.Sprintf("expected a ratio from 0 to 1, got %v", r)
	}
	return ""
}
