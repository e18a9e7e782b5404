package gateway

import (
	"context"
	"errors"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Observer is told what the gateway did, for metrics: it observes, never
// decides, and its methods must not block.
type Observer interface {
	// Finished is told a request's usage record once, when the request
	// ends, with the usage it was filled from (which also has the
	// reasoning tokens); r is not to be kept.
	Finished(r *meter.Record, us provider.Usage)
	// Retry is told of each retry of model's call, at deployment.
	Retry(model, deployment string)
	// Fallback is told of each turn from a model whose attempts failed to
	// one of its fallbacks.
	Fallback(from, to string)
	// UpstreamError is told of each failed upstream attempt, with the
	// class classify gave it ("client" for the client's own mistake).
	UpstreamError(provider, deployment, class string)
}

// Streams returns the number of streamed answers being relayed.
func (g *Gateway) Streams() int64 { return g.streams.Load() }

// observeFailure tells the observer of a failed attempt at deployment
// dep: its verdict's class, or "client" for an upstream's answer that is
// the client's mistake. A client gone or a gateway shutting down is
// nobody's error and is not told.
func (g *Gateway) observeFailure(ctx context.Context, providerName, dep string, v verdict, err error) {
	o := g.opt.Observer
	if o == nil || ctx.Err() != nil {
		return
	}
	class := v.class
	var pe *provider.Error
	if class == "" {
		if !errors.As(err, &pe) || pe.Kind == provider.KindCanceled {
			return
		}
		class = "client"
	}
	o.UpstreamError(providerName, dep, class)
}
