package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// TracerName names the instrumentation scope of Switchyard's spans.
const TracerName = "github.com/switchyard-gw/switchyard"

// Tracing is the app's own OpenTelemetry tracer provider: spans are
// batched and exported over OTLP, and flushed by Shutdown. Nothing is
// registered globally; the app hands the tracer to what makes spans.
type Tracing struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

// NewTracing builds the tracer provider cfg describes (cfg.Enabled is the
// caller's to check). The exporter connects lazily: a collector that is
// down costs dropped spans and a logged warning, never a request.
func NewTracing(ctx context.Context, cfg config.Tracing, log *slog.Logger) (*Tracing, error) {
	exp, err := newExporter(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(cfg.ServiceName)),
		resource.WithFromEnv())
	if errors.Is(err, resource.ErrPartialResource) || errors.Is(err, resource.ErrSchemaURLConflict) {
		log.Warn("tracing resource", "err", err) // res is still usable
	} else if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(&loggedExporter{SpanExporter: exp, log: log}),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sampler(cfg)))
	return &Tracing{provider: tp, tracer: tp.Tracer(TracerName, trace.WithSchemaURL(semconv.SchemaURL))}, nil
}

// Tracer returns the tracer the app's spans are made with.
func (t *Tracing) Tracer() trace.Tracer { return t.tracer }

// Propagator returns how trace context crosses HTTP: W3C traceparent
// and tracestate, read from clients and sent to upstreams. Baggage is
// not: it could carry what a client would not want upstream.
func (t *Tracing) Propagator() propagation.TextMapPropagator { return propagation.TraceContext{} }

// Shutdown exports the spans still queued and stops the exporter, within
// ctx's deadline.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing shutdown: %w", err)
	}
	return nil
}

// newExporter returns the OTLP exporter of cfg.Protocol. The exporter
// reads OTEL_EXPORTER_OTLP_* itself (endpoint, headers, timeout, TLS,
// compression); cfg.Endpoint is left empty when those name the endpoint.
func newExporter(ctx context.Context, cfg config.Tracing) (sdktrace.SpanExporter, error) {
	if cfg.Protocol == config.ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if cfg.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(cfg.Endpoint))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(cfg.Endpoint))
	}
	if cfg.Protocol == config.ProtocolHTTPJSON {
		opts = append(opts, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
	}
	return otlptracehttp.New(ctx, opts...)
}

// sampler returns the sampler cfg names; the ratio ones use
// cfg.SampleRatio.
func sampler(cfg config.Tracing) sdktrace.Sampler {
	ratio := sdktrace.TraceIDRatioBased(cfg.SampleRatio)
	switch cfg.Sampler {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return ratio
	case "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample())
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	}
	return sdktrace.ParentBased(ratio)
}

// exportLogInterval bounds how often failed exports are logged.
const exportLogInterval = time.Minute

// loggedExporter logs failed exports on the app's logger, at most once a
// minute with the count so far, instead of handing them to otel's global
// error handler (the standard library's log): a collector that is down
// must not flood the log.
type loggedExporter struct {
	sdktrace.SpanExporter
	log *slog.Logger
	// failures counts the failed exports; logged is when one was last
	// logged (Unix nanoseconds).
	failures atomic.Int64
	logged   atomic.Int64
}

func (e *loggedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err == nil {
		return nil
	}
	n := e.failures.Add(1)
	now, last := time.Now().UnixNano(), e.logged.Load()
	if (last == 0 || now-last >= int64(exportLogInterval)) && e.logged.CompareAndSwap(last, now) {
		e.log.Warn("trace export failed: spans dropped", "spans", len(spans), "failed_exports", n, "err", err)
	}
	return nil
}
