package dashboard

import (
	"errors"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// operator runs h for a signed-in operator (an account created with
// `switchyard accounts create --admin`). Anyone else signed in gets 403,
// whatever the path; the check is made on every request, from the
// account as stored, so an account that stops being an operator loses
// the pages at once.
func (d *Dashboard) operator(h authedHandler) http.Handler {
	return d.auth(func(w http.ResponseWriter, r *http.Request, s *session) {
		if !s.Account.IsAdmin {
			d.renderError(w, r, http.StatusForbidden, "Operators only",
				"This page is for the operators of this gateway. Your account can manage its own keys, usage, limits and alerts.")
			return
		}
		h(w, r, s)
	})
}

// accountError answers a failed account look-up: 404 for an account
// that does not exist, 500 otherwise.
func (d *Dashboard) accountError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		d.notFound(w, r)
		return
	}
	d.serverError(w, r, err)
}
