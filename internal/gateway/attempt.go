package gateway

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// run answers the request with the first model that can: first, then the
// fallbacks its failures allow. It writes the one answer to w.
func (x *exchange) run(ctx context.Context, w Writer, first *catalog.Model) {
	if x.req.Check != nil {
		if err := x.req.Check(first); err != nil {
			w.Error(err, x)
			return
		}
	}
	fallbacks := x.requested.Fallbacks
	var upstream error // the last failure of an upstream call
	for m := first; m != nil; {
		x.left = fallbacks
		err := x.tryModel(ctx, w, m)
		if err == nil {
			return
		}
		m = x.after(ctx, w, first, m, err, &fallbacks, &upstream)
	}
}

// after returns the model to try once m's attempts failed with err, and
// updates the fallbacks left and the last upstream failure; with none
// left it answers the request with the failure and returns nil. (A frame
// of its own: run's stays on the stack for a stream's life, issue 18.)
func (x *exchange) after(ctx context.Context, w Writer, first, m *catalog.Model, err error, fallbacks *[]string, upstream *error) *catalog.Model {
	var nd *NoDeployment
	if !errors.As(err, &nd) {
		*upstream = err
	}
	var next *catalog.Model
	if v := classify(ctx, err); v.fallback {
		next, *fallbacks = x.fallback(m, err, *fallbacks)
		if o := x.g.opt.Observer; o != nil && next != nil {
			o.Fallback(m.ID, next.ID)
		}
	}
	if next == nil && x.panics(err) {
		next = first
	}
	if next == nil {
		if nd != nil && *upstream != nil {
			// Fallbacks all cooling: the client hears what failed.
			err = *upstream
		}
		x.fail(w, err)
	}
	return next
}

// panics reports whether, after err, the request should try its model's
// deployments regardless of their cooldowns, and from then on does: when
// every candidate is cooling down after failures, and nothing was tried.
// Cooldowns are the gateway's guess from failures it saw; when the guess
// covers everything, acting on it would make the outage total (Envoy's
// panic threshold reasons the same way), while the retry budget still
// bounds the calls. A cooldown after an upstream's 429 is the upstream's
// own word on when to come back: it is kept.
func (x *exchange) panics(err error) bool {
	var nd *NoDeployment
	if x.panic || x.rec.Attempts > 0 || !errors.As(err, &nd) || nd.RateLimited {
		return false
	}
	x.panic = true
	return true
}

// fallback returns the model to try after m failed with err, and the
// fallbacks left after it: for a prompt too long for m the first of the
// requested model's context-window fallbacks with a larger window, else
// the next of its fallbacks the caller may use. It returns nil when none
// is left.
func (x *exchange) fallback(m *catalog.Model, err error, left []string) (*catalog.Model, []string) {
	if contextTooLong(err) {
		return windowFallback(x.rt, x.req, x.requested, m, x.allow), nil
	}
	for i, id := range left {
		if fb := usable(x.rt, x.req, id, x.allow); fb != nil && fb != m {
			return fb, left[i+1:]
		}
	}
	return nil, nil
}

// fail answers the request with err, the last failure.
func (x *exchange) fail(w Writer, err error) {
	x.refund = gatewayFault(err)
	if x.rec.Attempts > 0 {
		x.headers(w.Header())
	}
	w.Error(err, EndFunc(func(o Outcome) {
		if o.Status >= 500 || o.Status == StatusClientClosed {
			attrs := append([]any{"id", requestID(x.req), "err", err}, upstreamAttrs(err)...)
			x.g.opt.Log.Warn("upstream call failed", attrs...)
		}
		x.finish(o, provider.Usage{})
	}))
}

// StatusClientClosed is the status of a request whose client went away
// (nginx's 499), as recorded and logged.
const StatusClientClosed = 499

// tryModel tries m's deployments in the health order, with up to
// Routing.Retries retries, and answers the request through w when one
// answers. It returns the last failure, or a *NoDeployment when every
// deployment is cooling down.
//
// This frame is under the upstream call's deepest point (a stream's
// first read): a stack that grows past 8 KiB there keeps 16 KiB for the
// stream's life, so the retry gate and the failure's bookkeeping have
// frames of their own (issue 18).
func (x *exchange) tryModel(ctx context.Context, w Writer, m *catalog.Model) error {
	h := x.g.health
	order, until, byRateLimit := h.Order(x.rt.Deployments(m), m.Strategy)
	if x.panic {
		order = h.Rank(x.rt.Deployments(m), m.Strategy)
	}
	if len(order) == 0 {
		return &NoDeployment{Model: m.ID, RetryAfter: time.Until(until), RateLimited: byRateLimit}
	}
	h.Attempt(m.ID)
	var last error
	var lastDep string
	var v verdict
	next := 0 // the position in order of the next deployment to try
	for i := 0; ; i++ {
		d, ok := x.pick(m, order, &next, i > 0)
		if !ok {
			return last
		}
		if i > 0 {
			if err := x.again(ctx, m, d, lastDep, &v, i); err != nil {
				if err == errSpent {
					return last
				}
				return err
			}
		}
		err := x.attempt(ctx, w, target{model: m, dep: d})
		if err == nil {
			return nil
		}
		if v = x.failed(ctx, d, err); !v.retry {
			return err
		}
		last, lastDep = err, d.Key
	}
}

// errSpent: no retry is left for the model (again).
var errSpent = errors.New("retries spent")

// again lets retry i (from 1) go to d after a failure v at lastDep, and
// waits its backoff first. It returns errSpent when the retries, the
// budget or the upstream's Retry-After forbid it, and the wait's failure
// when the client went away (or the gateway is shutting down).
func (x *exchange) again(ctx context.Context, m *catalog.Model, d *route.Deployment, lastDep string, v *verdict, i int) error {
	r := x.g.routing.Load()
	same := d.Key == lastDep
	switch {
	case i > r.Retries, same && !v.sameAgain,
		same && v.retryAfter > r.MaxRetryAfter, !x.g.health.TryRetry(m.ID):
		return errSpent
	}
	if o := x.g.opt.Observer; o != nil {
		o.Retry(m.ID, d.Key)
	}
	wait := x.g.backoff(i)
	if same {
		wait = max(wait, v.retryAfter)
	}
	if err := x.g.wait(ctx, wait); err != nil {
		return &provider.Error{Provider: d.Provider.Name(), Kind: provider.KindCanceled, Err: err}
	}
	return nil
}

// failed classifies an attempt's failure at d and tells the observer and
// the deployment's health of it.
func (x *exchange) failed(ctx context.Context, d *route.Deployment, err error) verdict {
	v := classify(ctx, err)
	x.g.observeFailure(ctx, d.Provider.Name(), d.Key, v, err)
	if v.count {
		x.g.health.Failure(d.Key, v.class, v.retryAfter)
	}
	return v
}

// pick returns the deployment to try next, order[*next] (round the order
// again when the retries outnumber it), and moves *next past it. A retry
// skips the deployments that began to cool down after the order was made,
// by this request's failures or others': a cooldown holds for requests in
// flight too. When every one is cooling, the model's attempts end if a
// fallback is left to answer (ok false); else the order is kept, as in a
// panic: nothing else could answer, and the retry budget bounds the calls.
func (x *exchange) pick(m *catalog.Model, order []route.Deployment, next *int, retry bool) (d *route.Deployment, ok bool) {
	if retry && !x.panic {
		for k := range order {
			if d := &order[(*next+k)%len(order)]; !x.g.health.Cooling(d.Key) {
				*next += k + 1
				return d, true
			}
		}
		if fb, _ := x.fallback(m, nil, x.left); fb != nil && !x.allCooling(fb) {
			return nil, false
		}
	}
	d = &order[*next%len(order)]
	*next++
	return d, true
}

// allCooling reports whether every deployment of m is cooling down.
func (x *exchange) allCooling(m *catalog.Model) bool {
	for _, d := range x.rt.Deployments(m) {
		if !x.g.health.Cooling(d.Key) {
			return false
		}
	}
	return true
}

// backoff is the wait before retry n (from 1): full jitter over an
// exponentially growing cap.
func (g *Gateway) backoff(n int) time.Duration {
	r := g.routing.Load()
	d := r.BackoffMax
	if n-1 < 32 {
		d = min(r.BackoffBase<<(n-1), r.BackoffMax)
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// attempt makes one call to t and, when it answers, writes the answer
// through w and returns nil; a stream, once its first chunk arrives, is
// left in x.relay for Serve to relay. A stream that fails after its first
// chunk is the writer's to end.
func (x *exchange) attempt(ctx context.Context, w Writer, t target) error {
	h := x.g.health
	x.rec.Attempts++
	x.model, x.rec.Model = t.model, t.model.ID
	x.rec.Provider, x.rec.UpstreamModel, x.rec.Deployment = t.dep.Provider.Name(), t.dep.UpstreamID, t.dep.Key
	x.access.Deployment, x.access.Attempts = t.dep.Key, x.rec.Attempts
	done := h.Begin(t.dep.Key)
	actx, tm := withTimeouts(ctx, t.dep, x.req.Stream)
	actx, sp := x.spans.attempt(actx, x.req, t, x.rec.Attempts)
	start := time.Now()
	resp, st, err := x.g.call(actx, t, x.req)
	var first []byte
	eof := false
	if err == nil && st != nil {
		// The first chunk decides: a failure before it can be retried.
		if first, err = st.Next(); errors.Is(err, io.EOF) {
			first, err, eof = nil, nil, true
		} else if err != nil {
			st.Close()
		}
	}
	if err != nil {
		tm.end()
		done()
		err = tm.classified(ctx, t.dep.Provider.Name(), err)
		sp.end(ctx, err)
		return err
	}
	tm.firstByte()
	h.Success(t.dep.Key, time.Since(start))
	x.headers(w.Header())
	if st == nil {
		tm.end()
		done()
		x.spans.answered(sp, resp.Body, t.model.ID)
		sp.end(ctx, nil)
		x.resp = resp
		w.Response(resp, x)
		return nil
	}
	x.spans.answered(sp, first, t.model.ID)
	aw, _ := st.(provider.Awaiter)
	s := &relay{Stream: st, aw: aw, x: x, t: t, ctx: ctx, tm: tm, done: done, first: first, peeked: !eof, eof: eof,
		span: sp}
	x.stream, x.relay = st, s
	x.g.streams.Add(1)
	return nil
}

// headers tells the client which model and deployment answered (or
// failed last), after how many attempts, and announces the retirement of
// that model when it is not the one the Deprecation headers name yet.
func (x *exchange) headers(h http.Header) {
	// The values live in the exchange: a fresh array for each call is an
	// allocation, and a header map holds the strings, not the array, once
	// net/http copies it to send it.
	vals := &x.hdr
	*vals = [3]string{x.model.ID, x.rec.Provider, strconv.Itoa(x.rec.Attempts)}
	h["X-Switchyard-Model"], h["X-Switchyard-Deployment"], h["X-Switchyard-Attempts"] = vals[0:1:1], vals[1:2:2], vals[2:3:3]
	if x.model != x.requested {
		noticeHeaders(h, x.model, x.g.opt.Now())
	}
}

var _ provider.Awaiter = (*relay)(nil)

// relay is an attempt's stream as the writer relays it: the first chunk
// the attempt read, then the upstream's; each chunk is noted before it
// goes out, and closing it ends the attempt.
type relay struct {
	provider.Stream
	x    *exchange
	t    target
	ctx  context.Context
	tm   *timeouts
	done func()
	// first is the chunk the attempt read, when peeked.
	first  []byte
	peeked bool
	eof    bool
	ended  bool
	// span is the attempt's, ended with the stream.
	span child
	// aw is the stream's Await, if it has one.
	aw provider.Awaiter
}

func (s *relay) Next() ([]byte, error) {
	if s.peeked {
		s.peeked = false
		s.x.chunk()
		return s.first, nil
	}
	if s.eof {
		return nil, io.EOF
	}
	chunk, err := s.Stream.Next()
	switch {
	case errors.Is(err, io.EOF):
		s.eof = true
		return nil, err
	case err != nil:
		err = s.tm.classified(s.ctx, s.t.dep.Provider.Name(), err)
		v := classify(s.ctx, err)
		s.x.g.observeFailure(s.ctx, s.t.dep.Provider.Name(), s.t.dep.Key, v, err)
		if v.count {
			s.x.g.health.Failure(s.t.dep.Key, v.class, 0)
		}
		s.span.fail(s.ctx, err)
		return nil, err
	}
	s.x.chunk()
	return chunk, nil
}

// Await waits for the upstream's next bytes when Next would wait on them
// and the stream can wait apart (provider.Awaiter).
func (s *relay) Await() {
	if s.aw != nil && !s.peeked && !s.eof {
		s.aw.Await()
	}
}

func (s *relay) Close() error {
	if s.ended {
		return nil
	}
	s.ended = true
	s.x.g.streams.Add(-1)
	err := s.Stream.Close()
	s.tm.end()
	s.done()
	s.span.end(s.ctx, nil)
	return err
}

// NoDeployment reports a model none of whose deployments can be tried
// now: all are cooling down after failures, or after upstream rate
// limiting, for RetryAfter at least.
type NoDeployment struct {
	Model       string
	RetryAfter  time.Duration
	RateLimited bool
}

func (e *NoDeployment) Error() string {
	if e.RateLimited {
		return "every deployment of " + e.Model + " is rate-limited upstream"
	}
	return "every deployment of " + e.Model + " is cooling down"
}
