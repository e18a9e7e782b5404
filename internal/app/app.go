// Package app wires Switchyard's components for `serve` and runs them
// until shutdown.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/api"
	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/metrics"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// App is one running gateway process.
type App struct {
	cfg     *config.Config
	log     *slog.Logger
	store   *store.Store
	auth    *auth.Authenticator
	watcher *events.Watcher
	server  *server.Server
	meter   *meter.Meter
	spend   limits.Spend
	redis   *redis.Client    // nil without SWITCHYARD_REDIS_URL
	breaker *limits.Breaker  // whether Redis answers; nil without Redis
	rates   *limits.Fallback // nil without Redis: Memory is used directly
	// gateway runs the model requests; health keeps the deployments'
	// health and retry budgets, and healthShare shares it through Redis
	// (nil without Redis).
	gateway     *gateway.Gateway
	health      *health.Tracker
	healthShare *health.Redis
	alerts      *alerts.Observer
	worker      *alerts.Worker
	// dash serves the dashboard on a listener of its own; nil when it
	// shares the API's (or is off).
	dash     *server.Server
	dashAddr net.Addr
	tracing  *metrics.Tracing    // exports the spans; nil when tracing is off
	traced   []server.Middleware // the servers' tracing middleware, if any
	// metrics are nil when off; metricsSrv serves them on a listener of
	// their own (metrics.listen), else nil.
	metrics     *metrics.Metrics
	metricsSrv  *server.Server
	metricsAddr net.Addr

	now func() time.Time
	// reloadMu serializes Reload and guards live.
	reloadMu sync.Mutex
	// live is the configuration in force: cfg with the reloads applied.
	live *config.Config
}

// New opens and migrates the store and builds the components. The caller
// owns the store and closes it with Close.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger) (*App, error) {
	st, err := store.Open(ctx, cfg.Database.URL, store.Options{
		MaxOpenConns: cfg.Database.MaxOpenConns,
		Logger:       log,
		ChangePoll:   cfg.Auth.ChangePollInterval,
	})
	if err != nil {
		return nil, err
	}
	n, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if n > 0 {
		log.Info("applied migrations", "count", n, "dialect", st.Dialect())
	}
	a := &App{cfg: cfg, log: log, store: st}
	lookup := &keyLookup{s: st, defaults: cfg.Limits}
	a.auth = auth.New(lookup, auth.Options{
		LastUsedInterval:  cfg.Auth.LastUsedInterval,
		NegativeCacheSize: cfg.Auth.NegativeCacheSize,
		Logger:            log,
	})
	a.buildMetrics()
	lookup.m = a.metrics
	a.watcher = events.NewWatcher(st, log, 5*time.Second)
	a.watcher.Handle(a.onChange)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	a.now, a.live = now, cfg
	routes, err := Routes(cfg, now)
	if err == nil {
		err = a.buildMetering()
	}
	if err == nil {
		// Records journaled by an earlier process that died are written
		// before the server listens, so spend starts from a complete
		// ledger.
		err = a.recoverUsage(ctx)
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	a.buildHealth()
	gw := gateway.Options{Now: now, Log: log, OutputAllowance: cfg.Limits.OutputAllowance,
		Health: a.health, Routing: gatewayRouting(cfg.Routing)}
	if err := a.buildTracing(ctx, &gw); err != nil {
		a.Close()
		return nil, err
	}
	if a.meter != nil {
		gw.Meter = a.meter
		gw.Budget = limits.NewBudget(a.spend, cfg.Limits.FailClosed, log)
	}
	rates := a.buildRates()
	if rates != nil {
		gw.Rates = rates
	}
	a.observe(&gw)
	a.gateway = gateway.New(routes, gw)
	opt := api.Options{
		Gateway:        a.gateway,
		Auth:           a.auth,
		Log:            log,
		Ready:          st.Ping,
		WildcardModels: cfg.Models.Listing == "wildcard",

		MaxBodyBytesInFlight: cfg.Server.MaxBodyBytesInFlight,
		Responses:            responseStore{st},
		ResponseRetention:    cfg.Responses.Retention,
	}
	h, err := a.mountDashboard(api.New(opt), a.gateway.Routes, rates)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.server = server.New(cfg.Server, cfg.TLS, a.mountMetrics(h), log, a.traced...)
	a.observeServers()
	return a, nil
}

// Store returns the app's store.
func (a *App) Store() *store.Store { return a.store }

// Close closes the store and the Redis client, and stops tracing.
func (a *App) Close() error {
	if a.redis != nil {
		a.redis.Close()
	}
	a.stopTracing(context.Background())
	return a.store.Close()
}

// RevokeKey revokes a key and drops it from this process's cache before
// returning, so the very next request with it is refused; other processes
// learn of it through the change feed.
func (a *App) RevokeKey(ctx context.Context, id string) (store.Key, error) {
	k, err := a.store.RevokeKey(ctx, id)
	if err != nil {
		return k, err
	}
	h, err := apikey.ParseHash(k.Hash)
	if err != nil {
		return k, fmt.Errorf("revoked key %s has a bad hash: %w", id, err)
	}
	a.auth.Invalidate(h)
	return k, nil
}

// InvalidateAccount drops what this process caches of an account (its
// keys, limits, allow-list, alert rules), so that a change the dashboard
// just stored applies from the very next request; other processes learn
// of it through the change feed.
func (a *App) InvalidateAccount(id string) {
	a.auth.InvalidateAccount(id)
	if a.alerts != nil {
		a.alerts.Invalidate(id)
	}
}

// onChange invalidates what another process changed.
func (a *App) onChange(c events.Change) {
	switch c.Kind {
	case events.KindKey:
		h, err := apikey.ParseHash(c.Ref)
		if err != nil {
			a.log.Warn("bad key change", "seq", c.Seq, "err", err)
			return
		}
		a.auth.Invalidate(h)
	case events.KindAccount:
		a.InvalidateAccount(c.Ref)
	case events.KindAlerts:
		if a.alerts != nil {
			a.alerts.Invalidate(c.Ref)
		}
	}
}

// Listen binds the listener, and the dashboard's and the metrics' when
// they have their own, and returns the API's address.
func (a *App) Listen() (net.Addr, error) {
	sides := []struct {
		s    *server.Server
		what string
		addr *net.Addr
	}{{a.dash, "dashboard", &a.dashAddr}, {a.metricsSrv, "metrics", &a.metricsAddr}}
	for _, side := range sides {
		if side.s == nil {
			continue
		}
		addr, err := side.s.Listen()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", side.what, err)
		}
		*side.addr = addr
		a.log.Info(side.what+" listening", "addr", addr.String())
	}
	return a.server.Listen()
}

// DashboardAddr returns the address of the dashboard's own listener;
// nil when it is served on the API's listener or is off. Listen first.
func (a *App) DashboardAddr() net.Addr { return a.dashAddr }

// MetricsAddr returns the address of the metrics' own listener; nil
// without metrics.listen. Listen first.
func (a *App) MetricsAddr() net.Addr { return a.metricsAddr }

// Run serves until ctx ends, then shuts down gracefully: the server
// drains, then the background workers stop and flush. Listen first.
func (a *App) Run(ctx context.Context) error {
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	waitWatcher, err := a.watcher.Start(bg)
	if err != nil {
		return fmt.Errorf("start change watcher: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { a.auth.RunTouches(bg, a.store) })
	// The meter stops after the server has drained, so that the last
	// requests' records are written.
	meterCtx, stopMeter := context.WithCancel(context.WithoutCancel(ctx))
	defer stopMeter()
	var meterDone sync.WaitGroup
	if a.meter != nil {
		meterDone.Go(func() { a.meter.Run(meterCtx) })
	}
	if rs, ok := a.spend.(*limits.RedisSpend); ok {
		wg.Go(func() { rs.Run(bg) })
	}
	if a.breaker != nil {
		wg.Go(func() { a.breaker.Run(bg) })
	}
	if a.healthShare != nil {
		wg.Go(func() { a.healthShare.Run(bg) })
	}
	wg.Go(func() { purger{a.store, a.log, purgeInterval, purgeBatch}.Run(bg) })
	if keep := a.cfg.Metering.Retention; keep > 0 {
		wg.Go(func() { newUsagePurger(a.store, a.log, keep).Run(bg) })
	}
	if a.alerts != nil {
		wg.Go(func() { a.alerts.Run(bg) })
		wg.Go(func() { a.worker.Run(bg) })
	}

	// The dashboard's and the metrics' own listeners, when they have one.
	var sideErrs [2]error
	var sideDone sync.WaitGroup
	for i, s := range []*server.Server{a.dash, a.metricsSrv} {
		if s != nil {
			sideDone.Go(func() { sideErrs[i] = s.Serve(ctx) })
		}
	}
	err = a.server.Serve(ctx)
	sideDone.Wait()
	err = errors.Join(err, sideErrs[0], sideErrs[1])
	stopMeter()
	meterDone.Wait()
	stopBG()
	waitWatcher()
	wg.Wait()
	a.stopTracing(context.WithoutCancel(ctx)) // the last requests' spans are complete
	if st, ok := a.RedisStats(); ok && st.Outages > 0 {
		a.log.Warn("redis outages while serving", "outages", st.Outages, "failed_calls", st.Failures, "up", st.Up)
	}
	return err
}

// buildMetering makes the month-to-date spend (in memory, or in Redis
// when configured) and the meter that feeds it.
func (a *App) buildMetering() error {
	cfg := a.cfg
	if err := a.buildRedis(); err != nil {
		return err
	}
	if !cfg.Metering.Enabled {
		return nil
	}
	if err := a.buildAlerts(); err != nil {
		return err
	}
	if a.redis != nil {
		a.spend = limits.NewRedisSpend(a.redis, a.redisPrefix(), a.store, a.alerts, a.breaker, a.log)
	} else {
		a.spend = limits.NewMemorySpend(a.store, a.alerts)
	}
	var sink meter.Sink = a.store
	if a.metrics != nil {
		sink = timedSink{sink, a.metrics}
	}
	// PostgreSQL takes two batches at once, on two connections: one's
	// rows are copied while the other's commit waits on the disk. SQLite
	// has a single writer.
	writers := 1
	if a.store.Dialect() == "postgres" {
		writers = 2
	}
	m, err := meter.New(sink, meter.Options{
		Dir:           cfg.JournalDir(),
		QueueSize:     cfg.Metering.QueueSize,
		BatchSize:     cfg.Metering.BatchSize,
		Writers:       writers,
		FlushInterval: cfg.Metering.FlushInterval,
		MemoryLimit:   cfg.Metering.MemoryLimit,
		Spend:         a.spend,
		Log:           a.log,
	})
	if err != nil {
		return err
	}
	a.meter = m
	return nil
}

// buildAlerts makes the billing alert observer and delivery worker.
func (a *App) buildAlerts() error {
	cfg := a.cfg.Alerts
	var nets []netip.Prefix
	for _, n := range cfg.WebhookAllowedNetworks {
		p, err := netip.ParsePrefix(n)
		if err != nil {
			return fmt.Errorf("alerts.webhook_allowed_networks: %w", err)
		}
		nets = append(nets, p)
	}
	a.worker = alerts.NewWorker(a.store, alerts.WorkerOptions{
		Webhook: alerts.NewWebhook(alerts.WebhookOptions{AllowPrivate: cfg.WebhookAllowPrivate, AllowedNetworks: nets}),
		Email: alerts.NewMailer(alerts.SMTPConfig{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Username: cfg.SMTP.Username,
			Password: cfg.SMTP.Password, From: cfg.SMTP.From, TLS: cfg.SMTP.TLS}, alerts.MailerOptions{}),
		Log: a.log,
	})
	a.alerts = alerts.NewObserver(a.store, alerts.ObserverOptions{Worker: a.worker, Log: a.log})
	return nil
}

func (a *App) recoverUsage(ctx context.Context) error {
	if a.meter == nil {
		return nil
	}
	_, err := a.meter.Recover(ctx)
	return err
}

// mountDashboard returns h with the dashboard under /dashboard, or h
// alone when the dashboard is off or has a listener of its own. The
// dashboard reads the same routing table and rate limiter as the API.
func (a *App) mountDashboard(h http.Handler, routes func() *route.Table, rates *limits.Rates) (http.Handler, error) {
	cfg := a.cfg.Dashboard
	if !cfg.Enabled {
		return h, nil
	}
	d, err := dashboard.New(dashboard.Options{Store: a.store, Revoker: a, Invalidator: a, Config: cfg, Limits: a.cfg.Limits,
		Rates: rates, Routes: routes, Health: a.health, Providers: a.cfg.Providers, Metering: a.cfg.Metering.Enabled, Log: a.log})
	if err != nil {
		return nil, err
	}
	if cfg.Listen == "" {
		return d.Mount(h), nil
	}
	sc := a.cfg.Server
	sc.Listen, sc.CORSOrigins = cfg.Listen, nil
	a.dash = server.New(sc, a.cfg.TLS, d.Mount(nil), a.log, a.traced...)
	return h, nil
}

// Meter returns the app's usage meter (nil when metering is off).
func (a *App) Meter() *meter.Meter { return a.meter }
