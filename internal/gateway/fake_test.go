package gateway_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// step is what a flaky provider does on one call; the zero step answers.
type step struct {
	err    error // the call fails at once (stream: before its first chunk when beforeFirst)
	before bool  // a stream fails with err on its first Next, not at the call
	cut    error // a stream fails with cut after its first chunk
	block  bool  // the call (stream: its first Next) waits for its context to end
	// delay is how long a plain call takes to answer (its context ending
	// first fails it).
	delay time.Duration
}

// flaky is a provider that plays its steps in order, one per call, then
// answers; answers name the model they were asked for, as adapters do.
type flaky struct {
	name string

	mu    sync.Mutex // guards the following
	steps []step
	calls []*provider.Request
}

func (f *flaky) Name() string { return f.name }
func (f *flaky) Type() string { return "flaky" }

func (f *flaky) next(r *provider.Request) step {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r)
	if len(f.steps) == 0 {
		return step{}
	}
	s := f.steps[0]
	f.steps = f.steps[1:]
	return s
}

func (f *flaky) requests() []*provider.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

var answerUsage = provider.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}

func (f *flaky) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	s := f.next(r)
	if s.block {
		<-ctx.Done()
		return nil, provider.FromTransport(ctx, f.name, ctx.Err())
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, provider.FromTransport(ctx, f.name, ctx.Err())
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	return &provider.Response{Body: []byte(`{"model":"` + r.Model + `"}`), Usage: answerUsage}, nil
}

func (f *flaky) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	s := f.next(r)
	if s.err != nil && !s.before {
		return nil, s.err
	}
	return &flakyStream{ctx: ctx, s: s, name: f.name, model: r.Model}, nil
}

type flakyStream struct {
	ctx   context.Context
	s     step
	name  string
	model string
	n     int
}

func (st *flakyStream) Next() ([]byte, error) {
	st.n++
	switch {
	case st.n == 1 && st.s.block:
		<-st.ctx.Done()
		return nil, provider.FromTransport(st.ctx, st.name, st.ctx.Err())
	case st.n == 1 && st.s.before:
		return nil, st.s.err
	case st.n == 2 && st.s.cut != nil:
		return nil, st.s.cut
	case st.n <= 2:
		return []byte(`{"model":"` + st.model + `"}`), nil
	}
	return nil, io.EOF
}

func (st *flakyStream) Usage() provider.Usage {
	if st.n > 2 {
		return answerUsage
	}
	return provider.Usage{CompletionTokens: 1} // the one chunk sent
}

func (st *flakyStream) Close() error { return nil }

// health is a gateway.Health that records what it is told.
type health struct {
	mu sync.Mutex // guards the following
	// order, when set, replaces the catalogue order.
	order func(ds []route.Deployment) ([]route.Deployment, time.Time, bool)
	// rank, when set, replaces the catalogue order of Rank.
	rank func(ds []route.Deployment) []route.Deployment
	// cooling, when set, reports the deployments cooling down now: Order
	// (when order is nil) leaves them out, and Cooling reports them.
	cooling  func(key string) bool
	budget   int // retries allowed; -1: any
	inFlight int
	log      []string // "attempt m", "retry m", "success key", "failure key class"
}

func (h *health) note(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, s)
}

func (h *health) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

func (h *health) Rank(ds []route.Deployment, _ catalog.Strategy) []route.Deployment {
	if h.rank != nil {
		return h.rank(ds)
	}
	return ds
}

func (h *health) Order(ds []route.Deployment, _ catalog.Strategy) ([]route.Deployment, time.Time, bool) {
	if h.order != nil {
		return h.order(ds)
	}
	if h.cooling != nil {
		ds = slices.DeleteFunc(slices.Clone(ds), func(d route.Deployment) bool { return h.cooling(d.Key) })
	}
	return ds, time.Time{}, false
}

func (h *health) Cooling(key string) bool { return h.cooling != nil && h.cooling(key) }

func (h *health) Begin(string) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.inFlight--
	}
}

func (h *health) Success(key string, _ time.Duration) { h.note("success " + key) }
func (h *health) Failure(key, class string, retryAfter time.Duration) {
	s := "failure " + key + " " + class
	if retryAfter > 0 {
		s += " " + retryAfter.String()
	}
	h.note(s)
}
func (h *health) Attempt(model string) { h.note("attempt " + model) }
func (h *health) TryRetry(model string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.budget == 0 {
		h.log = append(h.log, "no retry "+model)
		return false
	}
	h.budget--
	h.log = append(h.log, "retry "+model)
	return true
}

// meterRec keeps the usage records.
type meterRec struct {
	mu   sync.Mutex // guards recs
	recs []meter.Record
}

func (m *meterRec) Record(r *meter.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, *r)
}
func (m *meterRec) Progress(*meter.Record) {}

// answer is a gateway.Writer that keeps what it is asked to write.
type answer struct {
	hdr    http.Header
	err    error // the request's error, or its stream's
	body   string
	chunks []string
	ends   int
}

func newAnswer() *answer { return &answer{hdr: http.Header{}} }

func (a *answer) Header() http.Header { return a.hdr }

func (a *answer) Error(err error, end gateway.Ender) {
	a.err = err
	a.ends++
	end.End(gateway.Outcome{Status: 502, ErrType: "test_error"})
}

func (a *answer) Response(resp *provider.Response, end gateway.Ender) {
	a.body = string(resp.Body)
	a.ends++
	end.End(gateway.Outcome{Status: 200})
}

func (a *answer) Stream(st provider.Stream, end gateway.Ender) {
	defer st.Close()
	for {
		chunk, err := st.Next()
		if err == io.EOF {
			a.ends++
			end.End(gateway.Outcome{Status: 200})
			return
		}
		if err != nil {
			a.err = err
			a.ends++
			end.End(gateway.Outcome{Status: 502, ErrType: "test_error"})
			return
		}
		a.chunks = append(a.chunks, string(chunk))
	}
}

// rig is a gateway over flaky providers a, b and c with the models:
// "m" on a, b, c with fallback "fb" (on c) and "fb2" (on b); "one" on a
// alone; "small" (window 10 tokens, on a) with context-window fallbacks
// "tiny" (window 5) and "big" (window 100000, on b).
type rig struct {
	g       *gateway.Gateway
	a, b, c *flaky
	health  *health
	meter   *meterRec
	obs     *observer
	waits   []time.Duration
}

func newRig(t *testing.T, timeouts catalog.Deployment) *rig {
	t.Helper()
	r := &rig{a: &flaky{name: "a"}, b: &flaky{name: "b"}, c: &flaky{name: "c"}, health: &health{budget: -1}, meter: &meterRec{}, obs: &observer{}}
	dep := func(p string) catalog.Deployment {
		d := timeouts
		d.Provider, d.UpstreamID = p, "up-"+p
		return d
	}
	chat := func(id string, price catalog.Price, window int, deps ...string) catalog.Entry {
		e := catalog.Entry{ID: id, Mode: catalog.ModeChat, InputPrice: price, OutputPrice: 2 * price, ContextWindow: window}
		for _, p := range deps {
			e.Deployments = append(e.Deployments, dep(p))
		}
		return e
	}
	m := chat("m", 1000, 0, "a", "b", "c")
	m.Fallbacks = []string{"fb", "fb2"}
	solo := chat("solo", 1000, 0, "a")
	solo.Fallbacks = []string{"fb"}
	small := chat("small", 1000, 10, "a")
	small.ContextWindowFallbacks = []string{"tiny", "big"}
	cat, err := catalog.Builtin()
	if err == nil {
		cat, err = cat.With([]catalog.Entry{m, chat("fb", 7000, 0, "c"), chat("fb2", 9000, 0, "b"),
			chat("one", 1000, 0, "a"), solo, small, chat("tiny", 1000, 5, "b"), chat("big", 3000, 100000, "b")})
	}
	if err != nil {
		t.Fatal(err)
	}
	routes := route.New(cat, []provider.Provider{r.a, r.b, r.c}, func() time.Time { return today })
	r.g = gateway.New(routes, gateway.Options{Health: r.health, Meter: r.meter, Observer: r.obs, Log: slog.New(slog.DiscardHandler)})
	r.obs.g = r.g
	r.g.SetWait(func(ctx context.Context, d time.Duration) error {
		r.waits = append(r.waits, d)
		return ctx.Err()
	})
	return r
}

// serve runs one chat request for model and returns what was written.
func (r *rig) serve(ctx context.Context, model string, stream bool) *answer {
	return r.serveBody(ctx, model, stream, `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
}

func (r *rig) serveBody(ctx context.Context, model string, stream bool, body string) *answer {
	a := newAnswer()
	req := &gateway.Request{Endpoint: provider.EndpointChat, Model: model, Body: []byte(body), Stream: stream,
		Access: &server.Record{ID: "req-1", Start: today}}
	r.g.Serve(ctx, req, a)
	return a
}

// record returns the request's one usage record.
func (r *rig) record(t *testing.T) meter.Record {
	t.Helper()
	r.meter.mu.Lock()
	defer r.meter.mu.Unlock()
	if len(r.meter.recs) != 1 {
		t.Fatalf("%d usage records, want 1", len(r.meter.recs))
	}
	return r.meter.recs[0]
}

// calls returns how many calls each provider got, as "a", "b", "c".
func (r *rig) calls() [3]int {
	return [3]int{len(r.a.requests()), len(r.b.requests()), len(r.c.requests())}
}
