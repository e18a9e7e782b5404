package app

import (
	"context"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/metrics"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// metricsRoute names /metrics in the access log and in
// switchyard_http_requests_total.
const metricsRoute = "GET /metrics"

// buildMetrics makes the metrics when metrics.enabled or metrics.listen
// turns them on; with neither, a.metrics stays nil and nothing on the
// request path is observed. The sources read components built after it,
// when Prometheus scrapes, which is after Listen.
func (a *App) buildMetrics() {
	cfg := a.cfg.Metrics
	if !cfg.On() {
		return
	}
	src := metrics.Sources{
		Deployments:      a.deploymentHealth,
		KeyCache:         a.auth.CacheStats,
		InFlightRequests: func() int64 { return a.server.InFlight() },
		InFlightStreams:  func() int64 { return a.gateway.Streams() },
	}
	if a.cfg.Metering.Enabled {
		src.Meter = a.meterStats
	}
	a.metrics = metrics.New(metrics.Options{PerAccount: cfg.PerAccount, Known: a.servedModel, Version: a.cfg.Version, Sources: src})
}

// observe hands the gateway, the limits and the servers to the metrics,
// when they are on.
func (a *App) observe(gw *gateway.Options) {
	if a.metrics == nil {
		return
	}
	gw.Observer = gatewayObserver{a.metrics}
	if gw.Rates != nil {
		gw.Rates = observedRates{gw.Rates, a.metrics}
	}
	if gw.Budget != nil {
		gw.Budget = observedBudget{gw.Budget, a.metrics}
	}
}

// mountMetrics returns h with /metrics in front of it when
// metrics.enabled, and makes the metrics' own listener when
// metrics.listen is set.
func (a *App) mountMetrics(h http.Handler) http.Handler {
	cfg := a.cfg.Metrics
	if a.metrics == nil {
		return h
	}
	mh := a.metrics.Handler(cfg.BearerToken)
	route := func(w http.ResponseWriter, r *http.Request) {
		server.RecordFrom(r.Context()).Route = metricsRoute
		mh.ServeHTTP(w, r)
	}
	if cfg.Listen != "" {
		mux := http.NewServeMux()
		mux.HandleFunc(metricsRoute, route)
		sc := a.cfg.Server
		sc.Listen, sc.CORSOrigins = cfg.Listen, nil
		a.metricsSrv = server.New(sc, a.cfg.TLS, mux, a.log)
	}
	if !cfg.Enabled {
		return h
	}
	// Not a ServeMux in front of the API's: that would cost every request
	// a second pattern match.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			route(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// observeServers has the metrics count every request of every listener.
func (a *App) observeServers() {
	if a.metrics == nil {
		return
	}
	for _, s := range []*server.Server{a.server, a.dash, a.metricsSrv} {
		if s != nil {
			s.Observe(serverObserver{a.metrics})
		}
	}
}

// servedModel reports whether the routing table in force serves model
// id: the model label's values are those, or "other".
func (a *App) servedModel(id string) bool {
	rt := a.gateway.Routes()
	m, ok := rt.Catalog().Lookup(id)
	return ok && m.ID == id && len(rt.Deployments(m)) > 0
}

// deploymentHealth returns whether each deployment of the routing table
// is cooling down.
func (a *App) deploymentHealth() []metrics.Deployment {
	rt := a.gateway.Routes()
	var keys []string
	seen := map[string]bool{}
	for _, m := range rt.Catalog().All() {
		for _, d := range rt.Deployments(m) {
			if !seen[d.Key] {
				seen[d.Key] = true
				keys = append(keys, d.Key)
			}
		}
	}
	states := a.health.Snapshot(keys)
	out := make([]metrics.Deployment, len(states))
	for i, st := range states {
		out[i] = metrics.Deployment{Key: st.Key, Cooling: !st.CoolingUntil.IsZero()}
	}
	return out
}

func (a *App) meterStats() metrics.MeterStats {
	s := a.meter.Stats()
	records, bytes := a.meter.Backlog()
	return metrics.MeterStats{Queued: int64(s.Queued), BacklogRecords: records, BacklogBytes: bytes,
		Written: s.Written, Lost: s.Lost, Spilled: s.Spilled, WriteFailures: s.SinkFailures}
}

// gatewayObserver counts the gateway's requests, retries, fallbacks and
// upstream failures.
type gatewayObserver struct{ *metrics.Metrics }

func (o gatewayObserver) Finished(r *meter.Record, us provider.Usage) {
	o.Request(metrics.Request{Endpoint: r.Endpoint, Model: r.Model, Provider: r.Provider, Deployment: r.Deployment,
		Account: r.AccountID, Status: r.Status, Latency: r.Latency, FirstByte: r.TTFT,
		InputTokens: r.PromptTokens, OutputTokens: r.CompletionTokens, CachedTokens: r.CachedTokens,
		ReasoningTokens: int64(us.ReasoningTokens), CostPicoUSD: int64(r.Cost)})
}

// serverObserver counts every HTTP request by route and status.
type serverObserver struct{ m *metrics.Metrics }

func (o serverObserver) Served(rec *server.Record, status int) { o.m.HTTPRequest(rec.Route, status) }

// observedRates counts the rate limits' refusals.
type observedRates struct {
	gateway.RateLimiter
	m *metrics.Metrics
}

func (r observedRates) Reserve(ctx context.Context, s limits.Subject, tokens int64) (limits.Outcome, error) {
	out, err := r.RateLimiter.Reserve(ctx, s, tokens)
	switch {
	case err != nil:
		r.m.LimitRefused("rates_unavailable")
	case out.Refused != nil && out.Refused.Kind == "requests":
		r.m.LimitRefused("rpm")
	case out.Refused != nil:
		r.m.LimitRefused("tpm")
	}
	return out, err
}

// observedBudget counts the spend limits' refusals.
type observedBudget struct {
	gateway.BudgetChecker
	m *metrics.Metrics
}

func (b observedBudget) Check(ctx context.Context, now time.Time, accountID, keyID string, accountLimit, keyLimit usd.Amount) error {
	err := b.BudgetChecker.Check(ctx, now, accountID, keyID, accountLimit, keyLimit)
	switch {
	case limits.IsOverBudget(err):
		b.m.LimitRefused("budget")
	case err != nil:
		b.m.LimitRefused("budget_unavailable")
	}
	return err
}

// timedSink times the meter's batch writes.
type timedSink struct {
	meter.Sink
	m *metrics.Metrics
}

func (s timedSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	defer s.m.DBCall("usage_write", time.Now())
	return s.Sink.WriteUsage(ctx, recs)
}

// redisTimer times every Redis command by its name, and pipelines as
// "pipeline".
type redisTimer struct{ m *metrics.Metrics }

func (h redisTimer) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h redisTimer) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.m.RedisCall(cmd.Name(), time.Since(start))
		return err
	}
}

func (h redisTimer) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.m.RedisCall("pipeline", time.Since(start))
		return err
	}
}
