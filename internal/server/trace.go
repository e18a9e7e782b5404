package server

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Span attributes of Switchyard's own, beside the semantic conventions'.
const (
	// AttrDeployment is the deployment that answered a model request (or
	// failed last).
	AttrDeployment = attribute.Key("switchyard.deployment")
	// AttrAttempts is the number of upstream calls a request made.
	AttrAttempts = attribute.Key("switchyard.attempts")
)

// Trace starts a SERVER span for each request, the child of the client's
// span when its traceparent names one, and ends it with what the access
// record says: route, status, and for a model request its operation,
// model, deployment and attempts (the span is named "chat gpt-4o", else
// "POST /v1/models"). It runs inside AccessLog. The span rides the
// request's context: the gateway's spans are its children, and the
// upstreams' traceparent names them. Nothing of the request's body,
// query or headers but the method becomes an attribute.
func Trace(tr trace.Tracer, prop propagation.TextMapPropagator) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			method := knownMethod(r.Method)
			ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, span := tr.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
			defer func() {
				endSpan(span, method, RecordFrom(ctx), statusOf(w, RecordFrom(ctx)))
			}()
			next.ServeHTTP(w, r.WithContext(ctx))
			// A complete answer goes to the client before the span ends.
			if sw, ok := w.(*statusWriter); ok {
				sw.finish(r)
			}
		})
	}
}

// endSpan names span and sets what the request's record says, then ends
// it. A status from 500 is an error of the server; one from 400 an error
// of the request, which error.type says but the span status does not.
func endSpan(span trace.Span, method string, rec *Record, status int) {
	if !span.IsRecording() { // not sampled: nothing to say
		span.End()
		return
	}
	route := rec.Route
	if i := strings.LastIndexByte(route, ' '); i >= 0 {
		route = route[i+1:] // "POST /v1/models" and "dashboard GET /dashboard/keys" name a path
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, semconv.HTTPResponseStatusCode(status))
	name := method
	if method == "_OTHER" {
		name = "HTTP"
	}
	if route != "" {
		attrs = append(attrs, semconv.HTTPRoute(route))
		name += " " + route
	}
	if rec.Operation != "" && rec.Model != "" {
		name = rec.Operation + " " + rec.Model
		attrs = append(attrs, semconv.GenAIOperationNameKey.String(rec.Operation), semconv.GenAIRequestModel(rec.Model))
	}
	if rec.Attempts > 0 {
		attrs = append(attrs, AttrDeployment.String(rec.Deployment), AttrAttempts.Int(rec.Attempts))
	}
	if status >= 400 {
		attrs = append(attrs, semconv.ErrorTypeKey.String(cmp.Or(rec.ErrorType, strconv.Itoa(status))))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	span.SetName(name)
	span.SetAttributes(attrs...)
	span.End()
}

// statusOf is the request's status as the access log has it: the one the
// handler settled, else the one written.
func statusOf(w http.ResponseWriter, rec *Record) int {
	written := 0
	if sw, ok := w.(*statusWriter); ok {
		written = sw.status
	}
	return cmp.Or(rec.Status, written, http.StatusOK)
}

// knownMethod returns m when it is a standard method, else "_OTHER" (the
// semantic conventions' bound on a client-chosen value); "_OTHER" spans
// are named "HTTP".
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
}
