package gateway

import (
	"context"
	"fmt"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// target is where one attempt goes: a model and one of its deployments.
type target struct {
	model *catalog.Model
	dep   *route.Deployment
}

// request is the provider's request for an attempt at t. Model is the
// model that answers, which the answer names.
func (t target) request(req *Request, body []byte) *provider.Request {
	return &provider.Request{
		Endpoint: req.Endpoint, Model: t.model.ID, UpstreamModel: t.dep.UpstreamID, Body: body,
		Stream: req.Stream, IncludeUsage: req.IncludeUsage, RequestID: requestID(req),
		MaxOutputTokens: t.model.MaxOutputTokens,
		Reasoning:       t.model.Reasoning, StructuredOutputs: t.model.StructuredOutputs,
	}
}

// call makes one upstream call for req at t: an answer, or a stream when
// req asks for one.
func (g *Gateway) call(ctx context.Context, t target, req *Request) (*provider.Response, provider.Stream, error) {
	switch {
	case req.Endpoint == provider.EndpointCompletion && req.Stream:
		st, err := g.completeStream(ctx, t, req)
		return nil, st, err
	case req.Endpoint == provider.EndpointCompletion:
		resp, err := g.complete(ctx, t, req)
		return resp, nil, err
	case req.Endpoint == provider.EndpointEmbedding:
		resp, err := g.embed(ctx, t, req)
		return resp, nil, err
	case req.Endpoint == provider.EndpointMessages, req.Endpoint == provider.EndpointResponses:
		return g.other(ctx, t, req)
	case req.Stream:
		st, err := g.chatStream(ctx, t, req)
		return nil, st, err
	}
	resp, err := g.chat(ctx, t, req)
	return resp, nil, err
}

// errNoCapability is returned when a provider lacks what a catalogue entry
// promises (a misconfiguration).
func errNoCapability(p provider.Provider, what string) error {
	return &provider.Error{Provider: p.Name(), Kind: provider.KindUnavailable,
		Err: fmt.Errorf("provider %s (%s) cannot serve %s", p.Name(), p.Type(), what)}
}

func (g *Gateway) chat(ctx context.Context, t target, req *Request) (*provider.Response, error) {
	ch, ok := t.dep.Provider.(provider.Chatter)
	if !ok {
		return nil, errNoCapability(t.dep.Provider, "chat")
	}
	return ch.Chat(ctx, t.request(req, req.Body))
}

func (g *Gateway) chatStream(ctx context.Context, t target, req *Request) (provider.Stream, error) {
	st, ok := t.dep.Provider.(provider.Streamer)
	if !ok {
		return nil, errNoCapability(t.dep.Provider, "streaming chat")
	}
	return st.ChatStream(ctx, t.request(req, req.Body))
}

func (g *Gateway) embed(ctx context.Context, t target, req *Request) (*provider.Response, error) {
	e, ok := t.dep.Provider.(provider.Embedder)
	if !ok {
		return nil, errNoCapability(t.dep.Provider, "embeddings")
	}
	return e.Embed(ctx, t.request(req, req.Body))
}

// other answers a request made in another API (Messages, Responses):
// natively when the upstream serves that API, else through its chat
// translation, whose answer the request's Translator turns back.
func (g *Gateway) other(ctx context.Context, t target, req *Request) (*provider.Response, provider.Stream, error) {
	if f, ok := t.dep.Provider.(provider.Forwarder); ok && f.Forwards(req.Endpoint) {
		r := t.request(req, req.Body)
		r.Header = req.Header
		if req.Stream {
			st, err := f.ForwardStream(ctx, r)
			return nil, st, err
		}
		resp, err := f.Forward(ctx, r)
		return resp, nil, err
	}
	if req.ChatBody == nil {
		if req.ChatErr != nil {
			return nil, nil, req.ChatErr
		}
		return nil, nil, errNoCapability(t.dep.Provider, req.Endpoint.String())
	}
	chat := *req
	chat.Endpoint, chat.Body, chat.IncludeUsage = provider.EndpointChat, req.ChatBody, true
	if req.Stream {
		st, err := g.chatStream(ctx, t, &chat)
		if err != nil {
			return nil, nil, err
		}
		return nil, req.Translator.Stream(st), nil
	}
	resp, err := g.chat(ctx, t, &chat)
	if err != nil {
		return nil, nil, err
	}
	resp, err = req.Translator.Response(resp)
	return resp, nil, err
}
