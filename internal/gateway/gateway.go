// Package gateway runs a model request from its decoded body to its
// answer: it resolves the model, checks the spend budget and takes the
// rate limits, tries the model's deployments and then its fallbacks in
// the order health gives, with retries, backoff and timeouts, hands the
// answer to the client's Writer, records one usage record, and settles
// the limits.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/backoff"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// Options configure a Gateway. Zero values take the defaults.
type Options struct {
	// Health orders deployments and keeps their health and the retry
	// budget; nil tries every deployment in catalogue order, with no
	// cooldowns and no budget.
	Health Health
	// Routing are the retry knobs.
	Routing Routing
	// Meter receives one usage record for every request that reached a
	// model; nil turns metering off.
	Meter Recorder
	// Budget refuses requests over a monthly spend limit; nil: none.
	Budget BudgetChecker
	// Rates enforces requests and tokens per minute; nil: none.
	Rates RateLimiter
	// OutputAllowance is the output tokens a request without max_tokens
	// reserves from its TPM limits (capped by the model's output limit).
	OutputAllowance int64
	// Observer is told of requests, retries, fallbacks and upstream
	// failures, for metrics; nil: none.
	Observer Observer
	// Log receives failures; default slog.Default().
	Log *slog.Logger
	// Now is the clock of model lifecycles and spend periods (default
	// time.Now).
	Now func() time.Time
	// Tracer makes the spans of a request whose server span records:
	// each upstream attempt, the limits, the meter's enqueue. Nil: none.
	Tracer trace.Tracer
}

// Routing are the knobs of retries (config routing:).
type Routing struct {
	// Retries is the most extra attempts after a model's first, across its
	// deployments, each also subject to the retry budget. 0 means the
	// default, 2; negative means none.
	Retries int
	// BackoffBase and BackoffMax bound the wait before the n-th retry:
	// drawn uniformly from [0, min(BackoffMax, BackoffBase × 2^(n-1))]
	// ("full jitter"). Defaults 100ms and 2s.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest upstream Retry-After the gateway waits
	// before trying the same deployment again; a longer one ends the
	// model's attempts at once. Default 5s.
	MaxRetryAfter time.Duration
}

func (r *Routing) defaults() {
	switch {
	case r.Retries == 0:
		r.Retries = 2
	case r.Retries < 0:
		r.Retries = 0
	}
	if r.BackoffBase <= 0 {
		r.BackoffBase = 100 * time.Millisecond
	}
	if r.BackoffMax <= 0 {
		r.BackoffMax = 2 * time.Second
	}
	if r.MaxRetryAfter <= 0 {
		r.MaxRetryAfter = 5 * time.Second
	}
}

// Gateway serves model requests over a routing table that can be swapped
// while it serves (SetRoutes).
type Gateway struct {
	routes atomic.Pointer[route.Table]
	// routing are the retry knobs in force (SetRouting).
	routing atomic.Pointer[Routing]
	opt     Options
	health  Health
	// streams counts the streamed answers being relayed.
	streams atomic.Int64
	// wait pauses between attempts; tests replace it.
	wait func(ctx context.Context, d time.Duration) error
}

// New returns a gateway over routes.
func New(routes *route.Table, opt Options) *Gateway {
	opt.Routing.defaults()
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	g := &Gateway{opt: opt, health: opt.Health, wait: backoff.Sleep}
	if g.health == nil {
		g.health = inOrder{}
	}
	g.routes.Store(routes)
	g.routing.Store(&opt.Routing)
	return g
}

// Routes returns the routing table in use.
func (g *Gateway) Routes() *route.Table { return g.routes.Load() }

// SetRoutes makes later requests use t; requests under way keep theirs.
func (g *Gateway) SetRoutes(t *route.Table) { g.routes.Store(t) }

// SetRouting makes later attempts use the retry knobs r (zero fields
// take the defaults).
func (g *Gateway) SetRouting(r Routing) {
	r.defaults()
	g.routing.Store(&r)
}

// Routing returns the retry knobs in force, defaults applied.
func (g *Gateway) Routing() Routing { return *g.routing.Load() }

// Request is one model request, decoded and validated by the caller.
type Request struct {
	Endpoint     provider.Endpoint
	Model        string
	Body         []byte // valid while Serve runs
	Stream       bool
	IncludeUsage bool
	// Prompts are a legacy completion's text prompts (nil for token IDs).
	Prompts []string
	// Principal is the authenticated caller.
	Principal auth.Principal
	// Access is the request's access log record; Serve fills its status,
	// deployment and attempts. Nil only in tests.
	Access *server.Record
	// Check, when set, refuses a model the request cannot use (the
	// embeddings dimensions, say): for the requested model it is the
	// answer, a fallback failing it is skipped.
	Check func(m *catalog.Model) error
	// ChatBody is, for a request made in another API (EndpointMessages,
	// EndpointResponses), its translation to a chat completions body with
	// stream_options.include_usage set when it streams: what upstreams
	// that do not serve that API natively receive, and what the limits
	// and the context-window check read.
	ChatBody []byte
	// Translator turns those upstreams' chat answers back into the
	// request's API; set with ChatBody.
	Translator Translator
	// ChatErr, when ChatBody is nil, is why the request has no chat
	// translation (it uses a feature only the API's own vendor serves):
	// upstreams serving the API natively answer it, others are refused
	// with this error.
	ChatErr error
	// Header holds the client's headers that upstreams serving the API
	// natively receive unchanged (provider.Request.Header).
	Header http.Header
	// Sizes are Body's fields that size its answers, when the handler
	// read them; unread, or with ChatBody set, the rate limits read them
	// from the body the limits see (chatBody).
	Sizes Sizes
}

// Translator turns chat completions answers into the shape of the API a
// request was made in, for upstreams that do not serve it natively.
type Translator interface {
	// Response turns a whole chat completion into the API's answer.
	Response(resp *provider.Response) (*provider.Response, error)
	// Stream turns a stream of chat completion chunks (ending with the
	// usage chunk) into a stream of the API's events, each Next returning
	// one event's data JSON, whose "type" names the event. A failure of
	// st is returned as is, for the Writer to end the stream with.
	Stream(st provider.Stream) provider.Stream
}

// chatBody is what the limits and the window check read of req: its chat
// translation when it has one.
func (req *Request) chatBody() []byte {
	if req.ChatBody != nil {
		return req.ChatBody
	}
	return req.Body
}

// sizes returns what sizes the answers of the body the limits read:
// Sizes when the handler read them from that body, else unread ones.
func (req *Request) sizes() Sizes {
	if req.ChatBody != nil {
		return Sizes{}
	}
	return req.Sizes
}

// Writer writes the answer in the client's dialect. Each method writes
// the request's one answer and calls end's End exactly once, with what the
// client is told, before the answer's last bytes leave, so that the
// usage record exists for every answer a client has received.
type Writer interface {
	Header() http.Header
	// Error maps err to the client's error and writes it.
	Error(err error, end Ender)
	// Response writes a whole answer.
	Response(resp *provider.Response, end Ender)
	// Stream relays a stream whose first chunk has arrived; st's
	// failures after that end the stream with an error event.
	Stream(st provider.Stream, end Ender)
}

// Ender takes what a request's client was told when its answer ends:
// the exchange, which records it. An interface rather than a function:
// the exchange's method value was an allocation a request (issue 18).
type Ender interface {
	End(Outcome)
}

// EndFunc is an Ender of a function.
type EndFunc func(Outcome)

// End calls f.
func (f EndFunc) End(o Outcome) { f(o) }

// Outcome is what a request's client was told.
type Outcome struct {
	Status  int    // 499 when the client went away
	ErrType string // the error type sent, "" on success
	// Cancelled reports an answer cut short: by the client going away or
	// by the gateway's shutdown.
	Cancelled bool
}

// Serve runs req and writes its one answer to w.
//
// Serve's frame, and those of the calls down to the stream's relay, stay
// on the connection goroutine's stack for a stream's whole life, with an
// upstream call, an event's parsing or the response's first flush on top
// of them; a stack that once needs more than 8 KiB doubles to 16 KiB and
// keeps it while the stream is open. So the work before and after the
// answer is done in functions of their own (issue 18).
func (g *Gateway) Serve(ctx context.Context, req *Request, w Writer) {
	x, err := g.exchangeFor(req)
	if err != nil {
		w.Error(err, EndFunc(func(Outcome) {}))
		return
	}
	defer x.abandon()
	if err := g.admit(ctx, x, w.Header()); err != nil {
		w.Error(err, x)
		return
	}
	x.run(ctx, w, x.requested)
	if x.relay != nil {
		w.Stream(x.relay, x)
	}
	if x.refund {
		g.refund(ctx, req, &x.res)
		return
	}
	g.settle(ctx, req, &x.res, x.rec.TotalTokens)
}

// exchangeFor resolves the model req asks for, one that the caller may
// use and that fits the request, and starts its exchange.
func (g *Gateway) exchangeFor(req *Request) (*exchange, error) {
	rt := g.routes.Load()
	allow := route.Allow{Account: req.Principal.AccountModels, Key: req.Principal.KeyModels}
	m, err := lookup(rt, req.Endpoint, req.Model, allow)
	if err == nil {
		m, err = g.fitting(rt, req, m, allow)
	}
	if err != nil {
		return nil, err
	}
	return g.newExchange(req, rt, m, allow), nil
}

// admit starts the request's trace, announces its model's retirement,
// checks its spend budget and takes its rate limits, into x.res.
func (g *Gateway) admit(ctx context.Context, x *exchange, h http.Header) error {
	m := x.requested
	x.spans = g.spansFor(ctx)
	x.spans.request(x.req)
	if now := g.opt.Now(); m.UnderNotice(now) {
		noticeHeaders(h, m, now)
	}
	lim := x.spans.limits(ctx, g)
	err := g.checkBudget(ctx, x.req)
	if err == nil {
		x.res, err = g.reserve(ctx, x.req, m, h, &x.rate)
	}
	lim.end(ctx, err)
	return err
}

// endpointModes lists the model modes each endpoint serves; legacy
// completions reach chat models through translation.
var endpointModes = map[provider.Endpoint][]catalog.Mode{
	provider.EndpointChat:       {catalog.ModeChat},
	provider.EndpointCompletion: {catalog.ModeCompletion, catalog.ModeChat},
	provider.EndpointEmbedding:  {catalog.ModeEmbedding},
	provider.EndpointMessages:   {catalog.ModeChat},
	provider.EndpointResponses:  {catalog.ModeChat},
}

// lookup resolves model id for the caller: a model that exists, is
// allowed, has a configured deployment, and serves the endpoint.
func lookup(rt *route.Table, e provider.Endpoint, id string, allow route.Allow) (*catalog.Model, error) {
	m, err := rt.Lookup(id, allow)
	if err != nil {
		return nil, err
	}
	if len(rt.Deployments(m)) == 0 {
		return nil, route.ErrNotFound
	}
	for _, mode := range endpointModes[e] {
		if m.Mode == mode {
			return m, nil
		}
	}
	return nil, &ErrWrongEndpoint{Model: id, Mode: m.Mode}
}

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
	// Code is the error code the client gets; "" is
	// "unsupported_parameter".
	Code string
}

func (e *ErrUnsupported) Error() string { return e.Message }

// IsNotFound reports an error that the client sees as 404 Model not found.
func IsNotFound(err error) bool { return errors.Is(err, route.ErrNotFound) }
