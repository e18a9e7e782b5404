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
	// Reading and checking have a frame of their own: this one stays on
	// the stack for a stream's life (issue 18).
	req, buf := h.modelRequest(w, r, check, aw)
	if req == nil {
		return
	}
	defer buf.release()
	ctx := r.Context()
	if req.Stream {
		ctx = provider.WithWaitHook(ctx, aw)
	}
	h.opt.Gateway.Serve(ctx, req, aw)
}

// modelRequest reads and checks r's body for serveModel and binds aw to
// the request. It returns the request and its body's buffer, which the
// caller releases, or nil after writing the error.
func (h *Handler) modelRequest(w http.ResponseWriter, r *http.Request, check func(body []byte) (*gateway.Request, *Error), aw modelWriter) (*gateway.Request, *bodyBuf) {
	body, buf, e := h.readBody(w, r)
	if e != nil {
		aw.d().writeError(w, r, e)
		return nil, nil
	}
	req, e := check(body)
	rec := server.RecordFrom(r.Context())
	if req != nil {
		rec.Model, rec.Operation = req.Model, gateway.Operation(req.Endpoint)
	}
	if e == nil && h.opt.Gateway == nil {
		e = ModelNotFound()
	}
	if e != nil {
		aw.d().writeError(w, r, e)
		buf.release()
		return nil, nil
	}
	req.Principal = rec.Principal
	req.Access = rec
	aw.bind(h, w, r)
	return req, buf
}

// modelCall is a chat or completion request and its answer, allocated
// together: one allocation instead of two a request (issue 18).
type modelCall struct {
	req gateway.Request
	answer
}

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	c := &modelCall{}
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, e := checkChat(body)
		c.req = gateway.Request{Endpoint: provider.EndpointChat, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage, Sizes: req.Sizes}
		return &c.req, e
	}, &c.answer)
}

func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	c := &modelCall{}
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, e := checkCompletion(body)
		c.req = gateway.Request{Endpoint: provider.EndpointCompletion, Model: req.Model, Body: body,
			Stream: req.Stream, IncludeUsage: req.IncludeUsage, Prompts: req.Prompts, Sizes: req.Sizes}
		return &c.req, e
	}, &c.answer)
}
