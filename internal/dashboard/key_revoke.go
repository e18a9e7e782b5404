package dashboard

import (
	"errors"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// revokePage is the data of the revocation's confirmation page: the key,
// where the form posts, and the page to go back to.
type revokePage struct {
	Key          store.Key
	Action, Back string
}

// revokeForm asks the owner for confirmation: revocation is permanent.
func (d *Dashboard) revokeForm(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.ownKey(r, s, r.PathValue("id"))
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	d.confirmRevoke(w, r, s, "keys", k, Prefix+"/keys")
}

// revokeKey revokes one of the owner's keys.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.ownKey(r, s, r.PathValue("id"))
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	d.revoke(w, r, s, k, Prefix+"/keys")
}

// adminRevokeForm asks an operator for confirmation before revoking a
// key of the account on whose page it is listed.
func (d *Dashboard) adminRevokeForm(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.accountKey(r)
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	d.confirmRevoke(w, r, s, "admin-accounts", k, Prefix+"/admin/accounts/"+k.AccountID)
}

// adminRevokeKey revokes a key of any account, for an operator (a key
// that leaked, say).
func (d *Dashboard) adminRevokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	k, err := d.accountKey(r)
	if err != nil {
		d.keyError(w, r, err)
		return
	}
	d.revoke(w, r, s, k, Prefix+"/admin/accounts/"+k.AccountID)
}

// accountKey returns the key {key} of the account {id}; ErrNotFound when
// that account has no such key.
func (d *Dashboard) accountKey(r *http.Request) (store.Key, error) {
	k, err := d.store.KeyByID(r.Context(), r.PathValue("key"))
	if err == nil && k.AccountID != r.PathValue("id") {
		err = store.ErrNotFound
	}
	return k, err
}

func (d *Dashboard) confirmRevoke(w http.ResponseWriter, r *http.Request, s *session, nav string, k store.Key, back string) {
	if k.Status == store.KeyRevoked {
		http.Redirect(w, r, back+"?msg=already-revoked", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "key_revoke", d.page(r, s, nav, "Revoke API key",
		revokePage{Key: k, Action: r.URL.Path, Back: back}))
}

// revoke revokes through the app, so that this process refuses the key
// from its very next request and the others within moments, and goes
// back to the page the key was listed on.
func (d *Dashboard) revoke(w http.ResponseWriter, r *http.Request, s *session, k store.Key, back string) {
	_, err := d.revoker.RevokeKey(r.Context(), k.ID)
	switch {
	case errors.Is(err, store.ErrRevoked):
		http.Redirect(w, r, back+"?msg=already-revoked", http.StatusSeeOther)
	case err != nil:
		d.serverError(w, r, err)
	default:
		d.log.Info("api key revoked from the dashboard", "key_id", k.ID, "account", k.AccountID, "by", s.AccountID)
		http.Redirect(w, r, back+"?msg=key-revoked", http.StatusSeeOther)
	}
}
