package server

import (
	"log/slog"
	"net/http"
)

// The shared middleware, as New composes it, is two handlers rather than
// a chain of six closures: the request count and the access log in one
// frame (logged), Recover, HSTS, CORS and the body limit in another
// (guarded), with the extra middleware, if any, between them. A handler's
// frames stay on the connection goroutine's stack for the whole request,
// a stream's idle hours included, and the runtime halves a parked
// goroutine's stack only when less than a quarter of it is in use: the
// chain of closures, each behind a HandlerFunc, held 544 bytes of it (848
// with HSTS and CORS), the two handlers hold 224. That brings the stack
// of a stream parked on its upstream under the quarter, over HTTP/2 and
// over HTTP/1.1, where it was just over: 22.2 → 16.3 KiB of stacks an
// open stream at 2,000 streams over HTTP/2, the bare proxy's figure
// (issue 18; TestMiddlewareStack; docs/BENCHMARKS.md, "Memory per open
// stream: the shared middleware's frames"). The exported middlewares do
// the same work one by one, for handlers served without New.

// logged counts the request among those running (Server.InFlight, the
// shutdown's drain) and gives it its access log record and line, as
// AccessLog does, around next: a guarded, or the extra middleware around
// one.
type logged struct {
	active *inflight
	log    *slog.Logger
	obs    *Observer
	next   http.Handler
}

func (l *logged) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.active.n.Add(1)
	defer l.active.n.Add(-1)
	st := newInFlight(w, r)
	l.next.ServeHTTP(&st.sw, r.WithContext(&st.ctx))
	st.end(l.log, l.obs, r)
}

// guarded is Recover, HSTS (when hsts), CORS and BodyLimit around next,
// in that order.
type guarded struct {
	log     *slog.Logger
	hsts    bool
	origins []string // CORS; none: CORS adds nothing
	max     int64    // the body limit
	next    http.Handler
}

func (g *guarded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer g.recover(w, r)
	if g.hsts {
		setHSTS(w)
	}
	if len(g.origins) > 0 && answerCORS(w, r, g.origins) || refuseBody(w, r, g.max) {
		return
	}
	g.next.ServeHTTP(w, r)
}

// recover is Recover's, deferred by ServeHTTP.
func (g *guarded) recover(w http.ResponseWriter, r *http.Request) {
	if v := recover(); v != nil {
		panicked(g.log, w, r, v)
	}
}
