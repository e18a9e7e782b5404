// Package metrics sets up what observes the gateway: Prometheus metrics
// (counters and histograms fed by the request path's events, and
// collectors that read the components' own counters at scrape time) and
// OpenTelemetry tracing. It observes, never decides, and imports none of
// the packages it observes: app adapts their types to the plain values
// here.
package metrics
