package api

import (
	"context"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// authedBy runs fn only for a request with a valid, active key, read by
// key as an Authorization header value; failures are written in d. The
// caller goes in the request's record (principal reads it back).
func (h *Handler) authedBy(key func(*http.Request) string, d dialect, fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The check has a frame of its own: this one stays on the stack
		// while fn serves, a stream's whole life (issue 18).
		if r = h.authenticate(w, r, key, d); r != nil {
			fn(w, r)
		}
	}
}

// authenticate checks r's key and puts its caller in r's record; it
// returns the request to serve, or nil after writing the failure in d.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, key func(*http.Request) string, d dialect) *http.Request {
	p, err := h.opt.Auth.Authenticate(r.Context(), key(r))
	if err != nil {
		d.writeError(w, r, h.authError(r, err))
		return nil
	}
	rec, ok := server.RecordOf(r.Context())
	if !ok { // served without the access log: a record of its own
		rec = &server.Record{}
		r = r.WithContext(server.NewContext(r.Context(), rec))
	}
	rec.Account, rec.Principal = p.AccountID, p
	return r
}

// principal is the request's authenticated caller (zero before authedBy).
func principal(ctx context.Context) auth.Principal {
	return server.RecordFrom(ctx).Principal
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
