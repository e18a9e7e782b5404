package dashboard

import (
	"errors"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// revokePage is the data of the revocation's confirmation page.
type revokePage struct {
	Key store.Key
}

// revokeForm asks for confirmation: revocation is permanent.
func (d *Dashboard) revokeForm(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.ownKey(r, s, r.PathValue("id"))
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	if k.Status == store.KeyRevoked {
		http.Redirect(w, r, Prefix+"/keys?msg=already-revoked", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "key_revoke", d.page(r, s, "keys", "Revoke API key", revokePage{Key: k}))
}

// revokeKey revokes through the app, so that this process refuses the
// key from its very next request and the others within moments.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.ownKey(r, s, r.PathValue("id"))
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	_, err = d.revoker.RevokeKey(r.Context(), k.ID)
	switch {
	case errors.Is(err, store.ErrRevoked):
		http.Redirect(w, r, Prefix+"/keys?msg=already-revoked", http.StatusSeeOther)
	case err != nil:
		d.serverError(w, r, err)
	default:
		d.log.Info("api key revoked from the dashboard", "key_id", k.ID, "account", s.AccountID)
		http.Redirect(w, r, Prefix+"/keys?msg=key-revoked", http.StatusSeeOther)
	}
}
