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

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	body, release, e := readBody(w, r)
	if e != nil {
		WriteError(w, e)
		return
	}
	defer release()
	req, e := checkChat(body)
	if e != nil {
		server.RecordFrom(r.Context()).Model = req.Model
		WriteError(w, e)
		return
	}
	c := &gateway.Call{Endpoint: provider.EndpointChat, Model: req.Model, Body: body, Stream: req.Stream, IncludeUsage: req.IncludeUsage}
	t, ok := h.begin(w, r, c)
	if !ok {
		return
	}
	if c.Stream {
		st, err := h.opt.Gateway.ChatStream(r.Context(), t, c)
		h.writeStream(w, r, st, err)
		return
	}
	resp, err := h.opt.Gateway.Chat(r.Context(), t, c)
	h.writeResponse(w, r, resp, err)
}

func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	body, release, e := readBody(w, r)
	if e != nil {
		WriteError(w, e)
		return
	}
	defer release()
	req, e := checkCompletion(body)
	if e != nil {
		WriteError(w, e)
		return
	}
	c := &gateway.Call{Endpoint: provider.EndpointCompletion, Model: req.Model, Body: body, Stream: req.Stream, IncludeUsage: req.IncludeUsage}
	t, ok := h.begin(w, r, c)
	if !ok {
		return
	}
	if c.Stream {
		st, err := h.opt.Gateway.CompleteStream(r.Context(), t, c, req.Prompts)
		h.writeStream(w, r, st, err)
		return
	}
	resp, err := h.opt.Gateway.Complete(r.Context(), t, c, req.Prompts)
	h.writeResponse(w, r, resp, err)
}

// writeResponse writes a complete answer, or the error.
func (h *Handler) writeResponse(w http.ResponseWriter, r *http.Request, resp *provider.Response, err error) {
	if err != nil {
		h.writeCallError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(http.StatusOK)
	w.Write(resp.Body)
}

// writeCallError logs an upstream failure and writes its client form.
func (h *Handler) writeCallError(w http.ResponseWriter, r *http.Request, err error) {
	e := callError(err)
	if e.Status >= 500 || e.Status == statusClientClosed {
		h.opt.Log.Warn("upstream call failed", "id", server.RecordFrom(r.Context()).ID, "err", err)
	}
	if e.Status == statusClientClosed {
		w.WriteHeader(statusClientClosed)
		return
	}
	WriteError(w, e)
}
