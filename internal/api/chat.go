package api

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// modelWriter is the gateway.Writer of one model request, given the
// request's handler, ResponseWriter and Request when it is served.
type modelWriter interface {
	gateway.Writer
	bind(h *Handler, w http.ResponseWriter, r *http.Request)
	// d is the dialect its errors are written in.
	d() dialect
	// its stream's wait hook (provider.WithWaitHook).
	provider.WaitHook
}

func (a *answer) bind(h *Handler, w http.ResponseWriter, r *http.Request) { a.h, a.w, a.r = h, w, r }

// serveModel is the shared first half of the POST model endpoints: read
// the body, validate it with check, and hand the request to the gateway,
// which answers through aw while the pooled body is still valid.
func (h *Handler) serveModel(w http.ResponseWriter, r *http.Request, check func(body []byte) (*gateway.Request, *Error), aw modelWriter) {
	body, buf, e := h.readBody(w, r)
	if e != nil {
		aw.d().writeError(w, r, e)
		return
	}
	defer buf.release()
	req, e := check(body)
	rec := server.RecordFrom(r.Context())
	if req != nil {
		rec.Model, rec.Operation = req.Model, gateway.Operation(req.Endpoint)
	}
	if e != nil {
		aw.d().writeError(w, r, e)
		return
	}
	if h.opt.Gateway == nil {
		aw.d().writeError(w, r, ModelNotFound())
		return
	}
	req.Principal = rec.Principal
	req.Access = rec
	aw.bind(h, w, r)
	ctx := r.Context()
	if req.Stream {
		ctx = provider.WithWaitHook(ctx, aw)
	}
	h.opt.Gateway.Serve(ctx, req, aw)
}

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, e := checkChat(body)
		return &gateway.Request{Endpoint: provider.EndpointChat, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage}, e
	}, &answer{})
}

func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, e := checkCompletion(body)
		return &gateway.Request{Endpoint: provider.EndpointCompletion, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage, Prompts: req.Prompts}, e
	}, &answer{})
}
