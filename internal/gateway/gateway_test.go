package gateway_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// TestMain fails the package if a test leaves goroutines behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var today = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// recorder is the mock provider, keeping every request it is sent and the
// usage it answered with.
type recorder struct {
	*mock.Provider

	mu    sync.Mutex // guards the following
	reqs  []*provider.Request
	usage []provider.Usage
}

func newRecorder() *recorder { return &recorder{Provider: mock.New("mock")} }

func (r *recorder) record(req *provider.Request, u provider.Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.usage = append(r.usage, u)
}

// requests returns the requests received so far.
func (r *recorder) requests() []*provider.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*provider.Request(nil), r.reqs...)
}

// total sums the usage of every answer so far.
func (r *recorder) total() provider.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var t provider.Usage
	for _, u := range r.usage {
		t.PromptTokens += u.PromptTokens
		t.CompletionTokens += u.CompletionTokens
		t.TotalTokens += u.TotalTokens
	}
	return t
}

func (r *recorder) Chat(ctx context.Context, req *provider.Request) (*provider.Response, error) {
	resp, err := r.Provider.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	r.record(req, resp.Usage)
	return resp, nil
}

func (r *recorder) ChatStream(ctx context.Context, req *provider.Request) (provider.Stream, error) {
	st, err := r.Provider.ChatStream(ctx, req)
	if err != nil {
		return nil, err
	}
	r.record(req, st.Usage()) // the mock knows its usage up front
	return st, nil
}

func (r *recorder) Complete(ctx context.Context, req *provider.Request) (*provider.Response, error) {
	resp, err := r.Provider.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	r.record(req, resp.Usage)
	return resp, nil
}

func (r *recorder) CompleteStream(ctx context.Context, req *provider.Request) (provider.Stream, error) {
	st, err := r.Provider.CompleteStream(ctx, req)
	if err != nil {
		return nil, err
	}
	r.record(req, st.Usage())
	return st, nil
}

func (r *recorder) Embed(ctx context.Context, req *provider.Request) (*provider.Response, error) {
	resp, err := r.Provider.Embed(ctx, req)
	if err != nil {
		return nil, err
	}
	r.record(req, resp.Usage)
	return resp, nil
}

// bare is a configured provider that can do nothing.
type bare struct{}

func (bare) Name() string { return "bare" }
func (bare) Type() string { return "bare" }

// newGateway returns a gateway over the built-in catalogue plus the mock's
// models, "house-chat" (mock-chat under another ID), "bare-chat" and
// "bare-instruct" (on a provider without capabilities) and "fan-chat" (on
// fan), at today.
func newGateway(t *testing.T, providers ...provider.Provider) *gateway.Gateway {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	entries := append(slices.Clone(mock.Models),
		catalog.Entry{ID: "house-chat", Mode: catalog.ModeChat, MaxOutputTokens: 2048,
			Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-chat"}}},
		catalog.Entry{ID: "bare-chat", Mode: catalog.ModeChat, Deployments: []catalog.Deployment{{Provider: "bare", UpstreamID: "b"}}},
		catalog.Entry{ID: "bare-instruct", Mode: catalog.ModeCompletion, Deployments: []catalog.Deployment{{Provider: "bare", UpstreamID: "b"}}},
		catalog.Entry{ID: "fan-chat", Mode: catalog.ModeChat, Deployments: []catalog.Deployment{{Provider: "fan", UpstreamID: "fan-chat"}}},
	)
	if cat, err = cat.With(entries); err != nil {
		t.Fatal(err)
	}
	routes := route.New(cat, providers, func() time.Time { return today })
	g := gateway.New(routes, gateway.Options{})
	if g.Routes() != routes {
		t.Fatal("Routes() is not the gateway's table")
	}
	return g
}

func TestRoute(t *testing.T) {
	g := newGateway(t, newRecorder(), bare{})
	chat, completion, embedding := provider.EndpointChat, provider.EndpointCompletion, provider.EndpointEmbedding
	tests := []struct {
		endpoint provider.Endpoint
		model    string
		allow    route.Allow
		wrong    catalog.Mode // the model's mode when the endpoint does not serve it
		notFound bool
	}{
		{endpoint: chat, model: "mock-chat"},
		{endpoint: chat, model: "mock-instruct", wrong: catalog.ModeCompletion},
		{endpoint: chat, model: "mock-embedding", wrong: catalog.ModeEmbedding},
		{endpoint: completion, model: "mock-instruct"},
		{endpoint: completion, model: "mock-chat"}, // through chat translation
		{endpoint: completion, model: "mock-embedding", wrong: catalog.ModeEmbedding},
		{endpoint: embedding, model: "mock-embedding"},
		{endpoint: embedding, model: "mock-chat", wrong: catalog.ModeChat},
		{endpoint: embedding, model: "mock-instruct", wrong: catalog.ModeCompletion},
		{endpoint: chat, model: "gpt-4o", notFound: true}, // no openai provider
		{endpoint: chat, model: "no-such-model", notFound: true},
		{endpoint: chat, model: "mock-chat", allow: route.Allow{Key: []string{"gpt-*"}}, notFound: true},
		{endpoint: embedding, model: "mock-chat", allow: route.Allow{Key: []string{"gpt-*"}}, notFound: true}, // not found before wrong endpoint
		{endpoint: chat, model: "mock-chat", allow: route.Allow{Account: []string{"mock-*"}, Key: []string{"mock-chat"}}},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint.String()+"/"+tt.model, func(t *testing.T) {
			got, err := g.Route(&gateway.Call{Endpoint: tt.endpoint, Model: tt.model, Allow: tt.allow})
			var wrong *gateway.ErrWrongEndpoint
			switch {
			case tt.notFound:
				if !gateway.IsNotFound(err) {
					t.Errorf("Route = %v, want not found", err)
				}
			case tt.wrong != "":
				if !errors.As(err, &wrong) || *wrong != (gateway.ErrWrongEndpoint{Model: tt.model, Mode: tt.wrong}) || gateway.IsNotFound(err) {
					t.Errorf("Route = %v, want ErrWrongEndpoint{%s, %s}", err, tt.model, tt.wrong)
				}
			case err != nil:
				t.Fatal(err)
			case got.Model.ID != tt.model || got.Provider.Name() != "mock":
				t.Errorf("Route = %s on %s", got.Model.ID, got.Provider.Name())
			}
		})
	}
}

// Chat, ChatStream and Embed hand the provider the call as a Request.
func TestCallRequest(t *testing.T) {
	tests := []struct {
		name string
		call gateway.Call
		do   func(g *gateway.Gateway, tg route.Target, c *gateway.Call) error
	}{
		{"chat", gateway.Call{Endpoint: provider.EndpointChat, Model: "house-chat", RequestID: "req-1",
			Body: []byte(`{"model":"house-chat","messages":[{"role":"user","content":"hi"}]}`)},
			func(g *gateway.Gateway, tg route.Target, c *gateway.Call) error {
				_, err := g.Chat(context.Background(), tg, c)
				return err
			}},
		{"chat stream", gateway.Call{Endpoint: provider.EndpointChat, Model: "house-chat", RequestID: "req-2", Stream: true, IncludeUsage: true,
			Body: []byte(`{"model":"house-chat","messages":[{"role":"user","content":"hi"}],"stream":true}`)},
			func(g *gateway.Gateway, tg route.Target, c *gateway.Call) error {
				st, err := g.ChatStream(context.Background(), tg, c)
				if err == nil {
					st.Close()
				}
				return err
			}},
		{"embed", gateway.Call{Endpoint: provider.EndpointEmbedding, Model: "mock-embedding", RequestID: "req-3",
			Body: []byte(`{"model":"mock-embedding","input":"hi"}`)},
			func(g *gateway.Gateway, tg route.Target, c *gateway.Call) error {
				_, err := g.Embed(context.Background(), tg, c)
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder()
			g := newGateway(t, rec)
			tg, err := g.Route(&tt.call)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.do(g, tg, &tt.call); err != nil {
				t.Fatal(err)
			}
			want := []*provider.Request{{Endpoint: tt.call.Endpoint, Model: tt.call.Model, UpstreamModel: tg.UpstreamID,
				Body: tt.call.Body, Stream: tt.call.Stream, IncludeUsage: tt.call.IncludeUsage, RequestID: tt.call.RequestID,
				MaxOutputTokens: tg.Model.MaxOutputTokens}}
			if diff := cmp.Diff(want, rec.requests()); diff != "" {
				t.Errorf("provider requests (-want +got):\n%s", diff)
			}
		})
	}
}

// A provider that lacks what its catalogue entry promises is a
// misconfiguration, reported as an unavailable upstream.
func TestNoCapability(t *testing.T) {
	g := newGateway(t, bare{})
	ctx := context.Background()
	tests := []struct {
		name string
		call gateway.Call
		do   func(tg route.Target, c *gateway.Call) error
	}{
		{"chat", gateway.Call{Endpoint: provider.EndpointChat, Model: "bare-chat"}, func(tg route.Target, c *gateway.Call) error {
			_, err := g.Chat(ctx, tg, c)
			return err
		}},
		{"chat stream", gateway.Call{Endpoint: provider.EndpointChat, Model: "bare-chat"}, func(tg route.Target, c *gateway.Call) error {
			_, err := g.ChatStream(ctx, tg, c)
			return err
		}},
		{"complete via chat", gateway.Call{Endpoint: provider.EndpointCompletion, Model: "bare-chat", Body: []byte(`{"prompt":"x"}`)},
			func(tg route.Target, c *gateway.Call) error {
				_, err := g.Complete(ctx, tg, c, []string{"x"})
				return err
			}},
		{"complete stream via chat", gateway.Call{Endpoint: provider.EndpointCompletion, Model: "bare-chat", Body: []byte(`{"prompt":"x"}`)},
			func(tg route.Target, c *gateway.Call) error {
				_, err := g.CompleteStream(ctx, tg, c, []string{"x"})
				return err
			}},
		{"complete on an instruct model", gateway.Call{Endpoint: provider.EndpointCompletion, Model: "bare-instruct", Body: []byte(`{"prompt":"x"}`)},
			func(tg route.Target, c *gateway.Call) error {
				_, err := g.Complete(ctx, tg, c, []string{"x"})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := g.Route(&tt.call)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.do(tg, &tt.call)
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindUnavailable || pe.Provider != "bare" {
				t.Errorf("error %v, want a KindUnavailable *provider.Error from bare", err)
			}
		})
	}
}
