package app

import (
	"context"
	"time"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/metrics"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// buildTracing makes the tracer provider when tracing is on, and gives
// its tracer to the gateway (gw) and the servers' middleware.
func (a *App) buildTracing(ctx context.Context, gw *gateway.Options) error {
	if !a.cfg.Tracing.Enabled {
		return nil
	}
	t, err := metrics.NewTracing(ctx, a.cfg.Tracing, a.log)
	if err != nil {
		return err
	}
	a.tracing = t
	gw.Tracer = t.Tracer()
	a.traced = []server.Middleware{server.Trace(t.Tracer(), t.Propagator())}
	return nil
}

// tracingShutdown bounds the export of the spans still queued at exit.
const tracingShutdown = 5 * time.Second

// stopTracing exports the spans still queued and stops the exporter; a
// collector that does not answer costs them, logged, not the exit.
func (a *App) stopTracing(ctx context.Context) {
	if a.tracing == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, tracingShutdown)
	defer cancel()
	if err := a.tracing.Shutdown(ctx); err != nil {
		a.log.Warn("tracing", "err", err)
	}
}
