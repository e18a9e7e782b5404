package api

import (
	"net/http"
	"strconv"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// begin reads and routes a model request: the common first half of every
// POST handler. It writes the error and returns ok=false when the request
// cannot go on.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, c *gateway.Call) (route.Target, bool) {
	rec := server.RecordFrom(r.Context())
	rec.Model = c.Model
	p, _ := auth.FromContext(r.Context())
	c.Allow = allowOf(p)
	c.RequestID = rec.ID
	if h.opt.Gateway == nil {
		WriteError(w, ModelNotFound())
		return route.Target{}, false
	}
	t, err := h.opt.Gateway.Route(c)
	if err != nil {
		WriteError(w, callError(err))
		return route.Target{}, false
	}
	h.noticeHeaders(w, t.Model)
	return t, true
}

// noticeHeaders announces a model's retirement (RFC 9745 Deprecation,
// RFC 8594 Sunset).
func (h *Handler) noticeHeaders(w http.ResponseWriter, m *catalog.Model) {
	if !m.UnderNotice(h.opt.Now()) {
		return
	}
	if m.DeprecatedOn.IsZero() {
		w.Header().Set("Deprecation", "true")
	} else {
		w.Header().Set("Deprecation", "@"+strconv.FormatInt(m.DeprecatedOn.Unix(), 10))
	}
	if !m.SunsetOn.IsZero() {
		w.Header().Set("Sunset", m.SunsetOn.UTC().Format(http.TimeFormat))
	}
}

// withCall is the shared first half of the POST model endpoints: read the
// body, validate it with check, route it; next runs only for a request
// that can go on, while the pooled body is still valid.
func (h *Handler) withCall(w http.ResponseWriter, r *http.Request,
	check func(body []byte) (*gateway.Call, *Error), next func(c *gateway.Call, t route.Target, u *tally)) {
	body, release, e := h.readBody(w, r)
	if e != nil {
		WriteError(w, e)
		return
	}
	defer release()
	c, e := check(body)
	if e != nil {
		if c != nil {
			server.RecordFrom(r.Context()).Model = c.Model
		}
		WriteError(w, e)
		return
	}
	t, ok := h.begin(w, r, c)
	if !ok {
		return
	}
	if e := checkWindow(c, t.Model); e != nil {
		WriteError(w, e)
		return
	}
	u := h.tally(r, c, t)
	defer u.abandon()
	if e := h.checkBudget(r); e != nil {
		h.fail(w, u, e)
		return
	}
	res, e := h.reserve(w, r, c, t)
	if e != nil {
		h.fail(w, u, e)
		return
	}
	next(c, t, u)
	if u.refund {
		h.refund(r, res)
		return
	}
	h.settle(r, res, u.rec.TotalTokens)
}

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	h.withCall(w, r, func(body []byte) (*gateway.Call, *Error) {
		req, e := checkChat(body)
		return &gateway.Call{Endpoint: provider.EndpointChat, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage}, e
	}, func(c *gateway.Call, t route.Target, u *tally) {
		if c.Stream {
			st, err := h.opt.Gateway.ChatStream(r.Context(), t, c)
			h.writeStream(w, r, st, err, u)
			return
		}
		resp, err := h.opt.Gateway.Chat(r.Context(), t, c)
		h.writeResponse(w, r, resp, err, u)
	})
}

func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	var prompts []string
	h.withCall(w, r, func(body []byte) (*gateway.Call, *Error) {
		req, e := checkCompletion(body)
		prompts = req.Prompts
		return &gateway.Call{Endpoint: provider.EndpointCompletion, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage}, e
	}, func(c *gateway.Call, t route.Target, u *tally) {
		if c.Stream {
			st, err := h.opt.Gateway.CompleteStream(r.Context(), t, c, prompts)
			h.writeStream(w, r, st, err, u)
			return
		}
		resp, err := h.opt.Gateway.Complete(r.Context(), t, c, prompts)
		h.writeResponse(w, r, resp, err, u)
	})
}

// writeResponse writes a complete answer, or the error. The usage is
// recorded before the answer is written, so a record exists for every
// answer a client has received.
func (h *Handler) writeResponse(w http.ResponseWriter, r *http.Request, resp *provider.Response, err error, u *tally) {
	if err != nil {
		h.writeCallError(w, r, err, u)
		return
	}
	u.finish(http.StatusOK, resp.Usage, "", false)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(http.StatusOK)
	w.Write(resp.Body)
}

// writeCallError logs an upstream failure, records it, and writes its
// client form.
func (h *Handler) writeCallError(w http.ResponseWriter, r *http.Request, err error, u *tally) {
	e := requestError(r, err)
	u.finish(e.Status, provider.Usage{}, e.Type, e.Status == statusClientClosed || shuttingDown(r))
	u.refund = gatewayFault(err)
	if e.Status >= 500 || e.Status == statusClientClosed {
		attrs := append([]any{"id", server.RecordFrom(r.Context()).ID, "err", err}, upstreamAttrs(err)...)
		h.opt.Log.Warn("upstream call failed", attrs...)
	}
	if e.Status == statusClientClosed {
		w.WriteHeader(statusClientClosed)
		return
	}
	WriteError(w, e)
}
