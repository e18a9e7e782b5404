package api

import (
	"errors"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/messages"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// anthropicKey returns the key of a Messages request as an Authorization
// header value: x-api-key (the SDKs' apiKey) or else Authorization:
// Bearer (their authToken, Claude Code's gateway key). When both are
// sent and differ, x-api-key wins.
func (h *Handler) anthropicKey(r *http.Request) string {
	values := r.Header.Values("X-Api-Key")
	switch {
	case len(values) > 1:
		return "Bearer -" // several keys: malformed
	case len(values) == 0 || values[0] == "":
		return authorization(r)
	}
	if bearer := authorization(r); bearer != "" && bearer != "Bearer "+values[0] {
		h.opt.Log.Warn("x-api-key and Authorization differ; using x-api-key", "id", server.RecordFrom(r.Context()).ID)
	}
	return "Bearer " + values[0]
}

// anthropicVersion refuses, as Anthropic does, a request without the
// anthropic-version header; it reports whether the request may go on.
func anthropicVersion(w http.ResponseWriter, r *http.Request) bool {
	setRequestID(w, r)
	if r.Header.Get("Anthropic-Version") != "" {
		return true
	}
	messagesDialect{}.writeError(w, r, badRequest("", "", "anthropic-version: header is required"))
	return false
}

// forwardedHeaders are the client headers an upstream serving Messages
// natively receives unchanged (the adapter sends its own
// anthropic-version).
var forwardedHeaders = []string{"Anthropic-Beta"}

func (h *Handler) messages(w http.ResponseWriter, r *http.Request) {
	if !anthropicVersion(w, r) {
		return
	}
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		hdr := http.Header{}
		for _, k := range forwardedHeaders {
			if v := r.Header.Values(k); len(v) > 0 {
				hdr[k] = append([]string(nil), v...)
			}
		}
		mr, err := messages.Parse(body)
		if err != nil {
			return nativeOnly(body, hdr, err)
		}
		chat, err := mr.Chat()
		if err != nil {
			return nil, serverError(http.StatusInternalServerError, "The server had an error while processing your request.")
		}
		return &gateway.Request{Endpoint: provider.EndpointMessages, Model: mr.Model, Stream: mr.Stream,
			Body: body, ChatBody: chat, Translator: mr.Translator(), Header: hdr}, nil
	}, &answer{dialect: messagesDialect{}})
}

// nativeOnly returns, for a body Parse refused with err, the request that
// only an upstream serving Messages natively (Anthropic) may answer, when
// err is about such a feature (a server tool) and the body names its
// model; else err as the client's 400.
func nativeOnly(body []byte, hdr http.Header, err error) (*gateway.Request, *Error) {
	model := gjson.GetBytes(body, "model")
	var me *messages.Error
	if !errors.As(err, &me) || !me.NativeOnly || model.Type != gjson.String || model.Str == "" {
		return &gateway.Request{Model: model.Str}, messagesBadRequest(err)
	}
	return &gateway.Request{Endpoint: provider.EndpointMessages, Model: model.Str,
		Stream: gjson.GetBytes(body, "stream").Type == gjson.True, Body: body, Header: hdr,
		ChatErr: &gateway.ErrUnsupported{Param: me.Param, Message: me.Error()}}, nil
}

// countTokens answers POST /v1/messages/count_tokens with an estimate for
// a model the key may use; it is neither metered nor rate-limited.
func (h *Handler) countTokens(w http.ResponseWriter, r *http.Request) {
	if !anthropicVersion(w, r) {
		return
	}
	d := messagesDialect{}
	body, buf, e := h.readBody(w, r)
	if e != nil {
		d.writeError(w, r, e)
		return
	}
	defer buf.release()
	mr, err := messages.ParseCount(body)
	if err != nil {
		d.writeError(w, r, messagesBadRequest(err))
		return
	}
	server.RecordFrom(r.Context()).Model = mr.Model
	p := principal(r.Context())
	if h.opt.Gateway == nil {
		d.writeError(w, r, ModelNotFound())
		return
	}
	if _, err := h.opt.Gateway.Routes().Pick(mr.Model, allowOf(p)); err != nil {
		d.writeError(w, r, ModelNotFound())
		return
	}
	writeJSON(w, http.StatusOK, struct {
		InputTokens int `json:"input_tokens"`
	}{mr.InputTokens()})
}

// eventType returns the "type" of an event's data, its name.
func eventType(data []byte) string { return gjson.GetBytes(data, "type").Str }
