package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Request is what the collectors take of a model request's usage record,
// once, when the request ends.
type Request struct {
	// Endpoint is the record's endpoint ("chat.completions", ...).
	Endpoint string
	// Model is the model that answered, or was tried last.
	Model      string
	Provider   string
	Deployment string // "" when no upstream was called
	// Account is the account's ID: a label only with Options.PerAccount.
	Account string
	// Status is the HTTP status the client got (499: it went away).
	Status  int
	Latency time.Duration
	// FirstByte is the time to the first streamed chunk; 0 when the
	// answer was not streamed or no chunk was sent.
	FirstByte time.Duration
	// InputTokens include CachedTokens; OutputTokens include
	// ReasoningTokens.
	InputTokens, OutputTokens, CachedTokens, ReasoningTokens int64
	// CostPicoUSD is the cost in pico-USD (usd.Amount).
	CostPicoUSD int64
}

// requestKey are the label values of a request's series.
type requestKey struct {
	endpoint, model, provider, deployment, class, account string
}

// requestSeries are the series one kind of request adds to.
type requestSeries struct {
	requests                         prometheus.Counter
	duration, firstByte              prometheus.Observer
	input, output, cached, reasoning prometheus.Counter
	cost                             prometheus.Counter
}

func (m *Metrics) newRequestSeries(k requestKey) *requestSeries {
	reqs := []string{k.endpoint, k.model, k.provider, k.deployment, k.class}
	tokens := func(kind string) []string { return []string{k.model, kind} }
	cost := []string{k.model}
	if m.perAccount {
		reqs, cost = append(reqs, k.account), append(cost, k.account)
		tokens = func(kind string) []string { return []string{k.model, kind, k.account} }
	}
	return &requestSeries{
		requests:  m.requests.WithLabelValues(reqs...),
		duration:  m.duration.WithLabelValues(k.endpoint, k.model),
		firstByte: m.firstByte.WithLabelValues(k.endpoint, k.model),
		input:     m.tokens.WithLabelValues(tokens("input")...),
		output:    m.tokens.WithLabelValues(tokens("output")...),
		cached:    m.tokens.WithLabelValues(tokens("cached")...),
		reasoning: m.tokens.WithLabelValues(tokens("reasoning")...),
		cost:      m.cost.WithLabelValues(cost...),
	}
}

// Request counts a model request that ended, its latency, tokens and
// cost.
func (m *Metrics) Request(r Request) {
	if m == nil {
		return
	}
	k := requestKey{endpoint: r.Endpoint, model: m.model(r.Model), provider: r.Provider,
		deployment: r.Deployment, class: statusClass(r.Status)}
	if k.deployment == "" {
		k.deployment = "none"
	}
	if m.perAccount {
		k.account = r.Account
	}
	s := m.reqSeries.get(k)
	s.requests.Inc()
	s.duration.Observe(r.Latency.Seconds())
	if r.FirstByte > 0 {
		s.firstByte.Observe(r.FirstByte.Seconds())
	}
	addCount(s.input, r.InputTokens)
	addCount(s.output, r.OutputTokens)
	addCount(s.cached, r.CachedTokens)
	addCount(s.reasoning, r.ReasoningTokens)
	if r.CostPicoUSD > 0 {
		s.cost.Add(float64(r.CostPicoUSD) / 1e12)
	}
}

func addCount(c prometheus.Counter, n int64) {
	if n > 0 {
		c.Add(float64(n))
	}
}

// httpKey are the label values of an HTTP request's series.
type httpKey struct{ route, class string }

// HTTPRequest counts an HTTP request that ended, by its route pattern
// ("" when no route matched) and the status it was logged with.
func (m *Metrics) HTTPRequest(route string, status int) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.httpSeries.get(httpKey{route, statusClass(status)}).Inc()
}

// Retry counts a retry of model's call at deployment.
func (m *Metrics) Retry(model, deployment string) {
	if m == nil {
		return
	}
	m.retries.WithLabelValues(m.model(model), deployment).Inc()
}

// Fallback counts a turn from model from to its fallback to.
func (m *Metrics) Fallback(from, to string) {
	if m == nil {
		return
	}
	m.fallbacks.WithLabelValues(m.model(from), m.model(to)).Inc()
}

// UpstreamError counts a failed upstream attempt of the class the gateway
// gave it (rate_limit, overloaded, timeout, first_byte_timeout, connect,
// reset, unavailable, auth, no_endpoint, client).
func (m *Metrics) UpstreamError(provider, deployment, class string) {
	if m == nil {
		return
	}
	m.upstreamErr.WithLabelValues(provider, deployment, class).Inc()
}

// LimitRefused counts a request a limit refused, of kind rpm, tpm,
// budget, rates_unavailable or budget_unavailable.
func (m *Metrics) LimitRefused(kind string) {
	if m == nil {
		return
	}
	m.refusals.WithLabelValues(kind).Inc()
}

// DBCall observes a database call of op that started at start.
func (m *Metrics) DBCall(op string, start time.Time) {
	if m == nil {
		return
	}
	m.dbSeries.get(op).Observe(time.Since(start).Seconds())
}

// RedisCall observes a Redis command (op: its name) that took d.
func (m *Metrics) RedisCall(op string, d time.Duration) {
	if m == nil {
		return
	}
	m.rdSeries.get(op).Observe(d.Seconds())
}

// model returns id as a label value: "other" when the routing table does
// not serve it.
func (m *Metrics) model(id string) string {
	if m.known != nil && !m.known(id) {
		return "other"
	}
	return id
}

// statusClasses are the status_class values of 0-599, by hundreds.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// statusClass returns "2xx", "4xx" and the like for status.
func statusClass(status int) string {
	if i := status / 100; i > 0 && i < len(statusClasses) {
		return statusClasses[i]
	}
	return statusClasses[0]
}

// series maps label values to their series, so that the request path
// finds them with a read-locked map lookup and no allocation (a vector's
// WithLabelValues allocates its arguments).
type series[K comparable, V any] struct {
	make func(K) V
	mu   sync.RWMutex
	m    map[K]V // guarded by mu
}

func (s *series[K, V]) get(k K) V {
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	if ok {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok = s.m[k]; !ok {
		if s.m == nil {
			s.m = make(map[K]V)
		}
		v = s.make(k)
		s.m[k] = v
	}
	return v
}
