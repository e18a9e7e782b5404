// Package metrics sets up what observes the gateway: Prometheus collectors
// and OpenTelemetry tracing. It observes, never decides.
package metrics
