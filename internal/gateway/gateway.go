// Package gateway is the request hot path after decoding: route the model,
// call the provider, and hand back an answer or a stream. Limits and
// metering hook in here.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// ErrWrongEndpoint reports a model that exists but does not serve the
// requested endpoint (a chat model on /v1/embeddings, say).
type ErrWrongEndpoint struct {
	Model string
	Mode  catalog.Mode
}

func (e *ErrWrongEndpoint) Error() string {
	return fmt.Sprintf("model %s is a %s model", e.Model, e.Mode)
}

// ErrUnsupported reports a request the target cannot serve, with the field
// at fault.
type ErrUnsupported struct {
	Param   string
	Message string
}

func (e *ErrUnsupported) Error() string { return e.Message }

// Gateway serves calls over a routing table.
type Gateway struct {
	// routes is swapped whole by SetRoutes (config reload); a request
	// keeps the table it started with.
	routes atomic.Pointer[route.Table]
}

// New returns a gateway over routes.
func New(routes *route.Table) *Gateway {
	g := &Gateway{}
	g.routes.Store(routes)
	return g
}

// Routes returns the routing table.
func (g *Gateway) Routes() *route.Table { return g.routes.Load() }

// SetRoutes replaces the routing table for the requests that start from
// now on; requests in flight finish with the one they started with.
func (g *Gateway) SetRoutes(t *route.Table) { g.routes.Store(t) }

// Call is one request to a model.
type Call struct {
	Endpoint     provider.Endpoint
	Model        string
	Body         []byte
	Stream       bool
	IncludeUsage bool
	RequestID    string
	Allow        route.Allow
}

// endpointModes lists the model modes each endpoint serves; legacy
// completions reach chat models through translation.
var endpointModes = map[provider.Endpoint][]catalog.Mode{
	provider.EndpointChat:       {catalog.ModeChat},
	provider.EndpointCompletion: {catalog.ModeCompletion, catalog.ModeChat},
	provider.EndpointEmbedding:  {catalog.ModeEmbedding},
}

// Route resolves the call's model and checks it serves the endpoint.
func (g *Gateway) Route(c *Call) (route.Target, error) {
	t, err := g.Routes().Pick(c.Model, c.Allow)
	if err != nil {
		return route.Target{}, err
	}
	for _, m := range endpointModes[c.Endpoint] {
		if t.Model.Mode == m {
			return t, nil
		}
	}
	return route.Target{}, &ErrWrongEndpoint{Model: c.Model, Mode: t.Model.Mode}
}

func (c *Call) request(t route.Target) *provider.Request {
	return &provider.Request{
		Endpoint: c.Endpoint, Model: c.Model, UpstreamModel: t.UpstreamID, Body: c.Body,
		Stream: c.Stream, IncludeUsage: c.IncludeUsage, RequestID: c.RequestID,
		MaxOutputTokens: t.Model.MaxOutputTokens,
	}
}

// errNoCapability is returned when a provider lacks what a catalogue entry
// promises (a misconfiguration).
func errNoCapability(p provider.Provider, what string) error {
	return &provider.Error{Provider: p.Name(), Kind: provider.KindUnavailable,
		Err: fmt.Errorf("provider %s (%s) cannot serve %s", p.Name(), p.Type(), what)}
}

// Chat answers a chat completion.
func (g *Gateway) Chat(ctx context.Context, t route.Target, c *Call) (*provider.Response, error) {
	ch, ok := t.Provider.(provider.Chatter)
	if !ok {
		return nil, errNoCapability(t.Provider, "chat")
	}
	return ch.Chat(ctx, c.request(t))
}

// ChatStream streams a chat completion.
func (g *Gateway) ChatStream(ctx context.Context, t route.Target, c *Call) (provider.Stream, error) {
	st, ok := t.Provider.(provider.Streamer)
	if !ok {
		return nil, errNoCapability(t.Provider, "streaming chat")
	}
	return st.ChatStream(ctx, c.request(t))
}

// Embed answers an embeddings request.
func (g *Gateway) Embed(ctx context.Context, t route.Target, c *Call) (*provider.Response, error) {
	e, ok := t.Provider.(provider.Embedder)
	if !ok {
		return nil, errNoCapability(t.Provider, "embeddings")
	}
	return e.Embed(ctx, c.request(t))
}

// IsNotFound reports an error that the client sees as 404 Model not found.
func IsNotFound(err error) bool { return errors.Is(err, route.ErrNotFound) }
