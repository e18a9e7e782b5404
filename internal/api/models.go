package api

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// modelObject is one entry of GET /v1/models.
type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func toModelObject(m *catalog.Model) modelObject {
	var created int64
	if !m.Created.IsZero() {
		created = m.Created.Unix()
	}
	return modelObject{ID: m.ID, Object: "model", Created: created, OwnedBy: m.OwnedBy()}
}

// allowOf returns the caller's allow-lists.
func allowOf(p auth.Principal) route.Allow {
	return route.Allow{Account: p.AccountModels, Key: p.KeyModels}
}

func (h *Handler) listModels(w http.ResponseWriter, r *http.Request) {
	data := []modelObject{}
	switch {
	case h.opt.WildcardModels:
		data = append(data, modelObject{ID: "*", Object: "model", OwnedBy: "switchyard"})
	case h.opt.Gateway != nil:
		p := principal(r.Context())
		for _, m := range h.opt.Gateway.Routes().Available(allowOf(p)) {
			data = append(data, toModelObject(m))
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{"list", data})
}

func (h *Handler) getModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("model")
	server.RecordFrom(r.Context()).Model = id
	if h.opt.WildcardModels {
		WriteError(w, badRequest("model", "MISSING_CONTEXT", "Model lookup is not available: GET /v1/models/{model} is not implemented."))
		return
	}
	if h.opt.Gateway == nil {
		WriteError(w, ModelNotFound())
		return
	}
	p := principal(r.Context())
	t, err := h.opt.Gateway.Routes().Pick(id, allowOf(p))
	if err != nil {
		WriteError(w, ModelNotFound())
		return
	}
	writeJSON(w, http.StatusOK, toModelObject(t.Model))
}
