package gateway

import (
	"context"
	"time"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// Call is one request at one model's first deployment, for the tests of
// the provider calls an attempt makes.
type Call struct {
	Endpoint     provider.Endpoint
	Model        string
	Body         []byte
	Stream       bool
	IncludeUsage bool
	RequestID    string
	Allow        route.Allow
}

func (c *Call) request(prompts []string) *Request {
	return &Request{Endpoint: c.Endpoint, Model: c.Model, Body: c.Body, Stream: c.Stream, IncludeUsage: c.IncludeUsage,
		Prompts: prompts, Access: &server.Record{ID: c.RequestID},
		Principal: auth.Principal{AccountModels: c.Allow.Account, KeyModels: c.Allow.Key}}
}

// Route resolves the call's model as Serve does, to its first deployment.
func (g *Gateway) Route(c *Call) (route.Target, error) {
	rt := g.Routes()
	m, err := lookup(rt, c.Endpoint, c.Model, c.Allow)
	if err != nil {
		return route.Target{}, err
	}
	d := rt.Deployments(m)[0]
	return route.Target{Model: m, Provider: d.Provider, UpstreamID: d.UpstreamID}, nil
}

func targetOf(t route.Target) target {
	return target{model: t.Model, dep: &route.Deployment{Provider: t.Provider,
		Deployment: catalog.Deployment{UpstreamID: t.UpstreamID}, Key: t.Provider.Name() + "/" + t.UpstreamID}}
}

func (g *Gateway) Chat(ctx context.Context, t route.Target, c *Call) (*provider.Response, error) {
	return g.chat(ctx, targetOf(t), c.request(nil))
}

func (g *Gateway) ChatStream(ctx context.Context, t route.Target, c *Call) (provider.Stream, error) {
	return g.chatStream(ctx, targetOf(t), c.request(nil))
}

func (g *Gateway) Embed(ctx context.Context, t route.Target, c *Call) (*provider.Response, error) {
	return g.embed(ctx, targetOf(t), c.request(nil))
}

func (g *Gateway) Complete(ctx context.Context, t route.Target, c *Call, prompts []string) (*provider.Response, error) {
	return g.complete(ctx, targetOf(t), c.request(prompts))
}

func (g *Gateway) CompleteStream(ctx context.Context, t route.Target, c *Call, prompts []string) (provider.Stream, error) {
	return g.completeStream(ctx, targetOf(t), c.request(prompts))
}

// SetWait replaces the gateway's pause between attempts.
func (g *Gateway) SetWait(wait func(ctx context.Context, d time.Duration) error) { g.wait = wait }
