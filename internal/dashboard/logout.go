package dashboard

import (
	"net/http"
	"time"
)

// logout ends the session in the store and in the browser.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, s *session) {
	if err := d.store.DeleteSession(r.Context(), tokenHash(s.token)); err != nil {
		d.serverError(w, r, err)
		return
	}
	http.SetCookie(w, d.cookie(r, sessionCookie, "", time.Time{}))
	http.Redirect(w, r, Prefix+"/login?msg=signed-out", http.StatusSeeOther)
}
