package dashboard

import (
	"errors"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// removeAlert removes one of the account's rules; a rule of another
// account is not found. The rule's history stays.
func (d *Dashboard) removeAlert(w http.ResponseWriter, r *http.Request, s *session) {
	err := d.store.RemoveAlertRule(r.Context(), s.AccountID, r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.notFound(w, r)
	case err != nil:
		d.serverError(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/alerts?msg=alert-removed", http.StatusSeeOther)
	}
}
