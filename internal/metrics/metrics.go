package metrics

import (
	"runtime"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Options configure Metrics.
type Options struct {
	// PerAccount adds an account label to the requests, tokens and cost
	// (config metrics.per_account). Default false: no account or key ID
	// is ever a label value.
	PerAccount bool
	// Known reports whether a model ID is served by the routing table in
	// force; any other is labelled "other", so that the label's values
	// stay bounded. Nil: every model is known.
	Known func(model string) bool
	// Version is the build's version for switchyard_build_info.
	Version string
	// Sources are the components' counters, read at scrape time.
	Sources Sources
}

// Metrics holds the gateway's collectors and the registry that serves
// them. A nil *Metrics is valid and records nothing, so that callers with
// metrics off pay one nil check.
type Metrics struct {
	reg   *prometheus.Registry
	known func(string) bool
	// perAccount adds the account label to requests, tokens and cost.
	perAccount bool

	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	firstByte   *prometheus.HistogramVec
	tokens      *prometheus.CounterVec
	cost        *prometheus.CounterVec
	httpReqs    *prometheus.CounterVec
	upstreamErr *prometheus.CounterVec
	retries     *prometheus.CounterVec
	fallbacks   *prometheus.CounterVec
	refusals    *prometheus.CounterVec
	dbCalls     *prometheus.HistogramVec
	redisCalls  *prometheus.HistogramVec

	// The series the request path uses, found by their label values
	// without allocating.
	reqSeries  series[requestKey, *requestSeries]
	httpSeries series[httpKey, prometheus.Counter]
	dbSeries   series[string, prometheus.Observer]
	rdSeries   series[string, prometheus.Observer]
}

// Buckets are the bounds, in seconds, of the latency histograms: 16
// exponential steps from 1 ms to 120 s.
var Buckets = prometheus.ExponentialBucketsRange(0.001, 120, 16)

// callBuckets are the bounds of the database and Redis call histograms:
// 16 exponential steps from 100 µs to 30 s.
var callBuckets = prometheus.ExponentialBucketsRange(0.0001, 30, 16)

// New returns Metrics with their own registry, holding the gateway's
// collectors and the Go runtime's and the process's.
func New(opt Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), known: opt.Known, perAccount: opt.PerAccount}
	acct := func(labels ...string) []string {
		if opt.PerAccount {
			return append(labels, "account")
		}
		return labels
	}
	m.requests = counterVec("requests_total", "Model requests by the endpoint, the model that answered (or was tried last), its provider and deployment, and the class of the status the client got.",
		acct("endpoint", "model", "provider", "deployment", "status_class")...)
	m.duration = histogramVec("request_duration_seconds", "Time from a model request's arrival to its end (a stream's last byte).", Buckets, "endpoint", "model")
	m.firstByte = histogramVec("time_to_first_byte_seconds", "Time from a streamed model request's arrival to its first chunk sent.", Buckets, "endpoint", "model")
	m.tokens = counterVec("tokens_total", "Tokens of model requests by kind: input (cached ones included), output (reasoning ones included), cached, reasoning.",
		acct("model", "kind")...)
	m.cost = counterVec("cost_usd_total", "Cost of model requests in US dollars, at the catalogue's prices.", acct("model")...)
	m.httpReqs = counterVec("http_requests_total", "HTTP requests on every listener by route pattern (\"unmatched\" for none) and status class.", "route", "status_class")
	m.upstreamErr = counterVec("upstream_errors_total", "Failed upstream attempts by the class the gateway gave the failure.", "provider", "deployment", "class")
	m.retries = counterVec("retries_total", "Retries of a model's upstream call, by the deployment retried at.", "model", "deployment")
	m.fallbacks = counterVec("fallbacks_total", "Turns from a model whose attempts failed to one of its fallbacks.", "from_model", "to_model")
	m.refusals = counterVec("limit_refusals_total", "Requests refused by a limit: rpm, tpm, budget, or rates_unavailable and budget_unavailable when the limits could not be checked (fail closed).", "kind")
	m.dbCalls = histogramVec("db_call_duration_seconds", "Database calls of the request path and the usage writer.", callBuckets, "op")
	m.redisCalls = histogramVec("redis_call_duration_seconds", "Redis commands by name (\"pipeline\" for a pipeline).", callBuckets, "op")
	m.reqSeries.make = m.newRequestSeries
	m.httpSeries.make = func(k httpKey) prometheus.Counter { return m.httpReqs.WithLabelValues(k.route, k.class) }
	m.dbSeries.make = func(op string) prometheus.Observer { return m.dbCalls.WithLabelValues(op) }
	m.rdSeries.make = func(op string) prometheus.Observer { return m.redisCalls.WithLabelValues(op) }
	m.reg.MustRegister(m.requests, m.duration, m.firstByte, m.tokens, m.cost, m.httpReqs, m.upstreamErr,
		m.retries, m.fallbacks, m.refusals, m.dbCalls, m.redisCalls)
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(opt.Version))
	opt.Sources.register(m.reg)
	return m
}

// Registry returns the registry the metrics are in, for tests and for
// other collectors of this process.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

const namespace = "switchyard"

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

// histogramVec makes a histogram with both classic buckets (what the text
// format and promtool see) and native ones of 10% growth, which a
// Prometheus with native histograms enabled scrapes instead for finer
// quantiles.
func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets,
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160, NativeHistogramMinResetDuration: time.Hour}, labels)
}

// buildInfo is switchyard_build_info: 1, labelled with the build's
// version, Go version and VCS revision ("unknown" when not stamped).
func buildInfo(version string) prometheus.Collector {
	revision := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				revision = s.Value
			}
		}
	}
	if version == "" {
		version = "devel"
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "build_info",
		Help:        "The running build: always 1, labelled with its version, Go version and VCS revision.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version(), "revision": revision},
	}, func() float64 { return 1 })
}
