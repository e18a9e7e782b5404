package api

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// authedBy runs fn only for a request with a valid, active key, read by
// key as an Authorization header value; failures are written in d.
func (h *Handler) authedBy(key func(*http.Request) string, d dialect, fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := h.opt.Auth.Authenticate(r.Context(), key(r))
		if err != nil {
			d.writeError(w, r, h.authError(r, err))
			return
		}
		server.RecordFrom(r.Context()).Account = p.AccountID
		fn(w, r.WithContext(auth.NewContext(r.Context(), p)))
	}
}

// authorization returns the request's Authorization header; several are
// malformed.
func authorization(r *http.Request) string {
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 1:
		return values[0]
	case len(values) > 1:
		return "Bearer -"
	}
	return ""
}
