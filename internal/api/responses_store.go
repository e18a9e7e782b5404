package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/server"
)

// ErrResponseNotFound is a ResponseStore's answer for a response that
// does not exist, has expired, or is another account's.
var ErrResponseNotFound = errors.New("response not found")

// StoredResponse is a Responses API answer as a ResponseStore keeps it.
type StoredResponse struct {
	ID, AccountID, KeyID, Model string
	CreatedAt, ExpiresAt        time.Time
	// PreviousResponseID is the response this one continued; "" for none.
	PreviousResponseID string
	// InputItems is the JSON array of the whole context before the
	// response: the continued chain's items, then the request's input.
	InputItems []byte
	// OutputItems is the JSON array of the response's output items.
	OutputItems []byte
	// Response is the Response object as the client received it.
	Response []byte
}

// ResponseStore keeps the Responses API's answers per account.
type ResponseStore interface {
	SaveResponse(ctx context.Context, r StoredResponse) error
	// Response returns the account's response id, or ErrResponseNotFound.
	Response(ctx context.Context, accountID, id string) (StoredResponse, error)
	// DeleteResponse deletes the account's response id, or returns
	// ErrResponseNotFound.
	DeleteResponse(ctx context.Context, accountID, id string) error
}

// ResponseSaveFailures returns how many responses asked to be stored
// could not be (their clients got the answer; it cannot be retrieved or
// continued).
func (h *Handler) ResponseSaveFailures() int64 { return h.saveFailures.Load() }

func (h *Handler) responsesRoutes() {
	h.route("POST /v1/responses", h.authed(h.createResponse))
	h.handle("POST /v1/responses/input_tokens", h.authed(h.responseInputTokens))
	h.routeMethods("/v1/responses/{id}",
		methodFn{http.MethodGet, h.authed(h.getResponse)},
		methodFn{http.MethodDelete, h.authed(h.deleteResponse)})
	h.route("GET /v1/responses/{id}/input_items", h.authed(h.listInputItems))
	h.route("POST /v1/responses/{id}/cancel", h.authed(h.cancelResponse))
}

// responseNotFound is the 404 of a response the caller cannot see.
func responseNotFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "response_id",
		Message: fmt.Sprintf("Response with id '%s' not found.", id)}
}

// storeUnavailable is the answer when the response store fails.
func storeUnavailable() *Error {
	return unavailable("Stored responses cannot be read just now. Please retry.", 1)
}

// storedResponse loads the caller's response {id}; on failure it writes
// the error and returns false.
func (h *Handler) storedResponse(w http.ResponseWriter, r *http.Request) (StoredResponse, bool) {
	id := r.PathValue("id")
	sr, err := h.loadResponse(r.Context(), id)
	if err != nil {
		WriteError(w, h.storeError(r, err, responseNotFound(id)))
		return StoredResponse{}, false
	}
	return sr, true
}

// loadResponse reads the caller's response id.
func (h *Handler) loadResponse(ctx context.Context, id string) (StoredResponse, error) {
	if h.opt.Responses == nil {
		return StoredResponse{}, ErrResponseNotFound
	}
	p := principal(ctx)
	return h.opt.Responses.Response(ctx, p.AccountID, id)
}

// storeError maps a store failure to notFound, or to a 503 logged.
func (h *Handler) storeError(r *http.Request, err error, notFound *Error) *Error {
	if errors.Is(err, ErrResponseNotFound) {
		return notFound
	}
	h.opt.Log.Error("response store", "id", server.RecordFrom(r.Context()).ID, "err", err)
	return storeUnavailable()
}

func (h *Handler) getResponse(w http.ResponseWriter, r *http.Request) {
	if sr, ok := h.storedResponse(w, r); ok {
		writeJSONBytes(w, http.StatusOK, sr.Response)
	}
}

func (h *Handler) deleteResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := ErrResponseNotFound
	if h.opt.Responses != nil {
		p := principal(r.Context())
		err = h.opt.Responses.DeleteResponse(r.Context(), p.AccountID, id)
	}
	if err != nil {
		WriteError(w, h.storeError(r, err, responseNotFound(id)))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Deleted bool   `json:"deleted"`
	}{id, "response", true})
}

// cancelResponse refuses: only background responses can be cancelled,
// and the gateway runs none.
func (h *Handler) cancelResponse(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.storedResponse(w, r); ok {
		WriteError(w, badRequest("response_id", "",
			"Only responses created with background:true can be cancelled, and this gateway does not run responses in the background."))
	}
}

// items decodes a stored JSON array of items.
func items(b []byte) ([]json.RawMessage, error) {
	var l []json.RawMessage
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("stored items: %w", err)
	}
	return l, nil
}
