package dashboard

import (
	"fmt"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// keyLimitsForm is the data of the form that changes a key's limits.
type keyLimitsForm struct {
	Key store.Key
	limitFields
	Errors   map[string]string // by field
	Defaults rateDefaults
}

// keyLimitsPage shows an active key's own limits in a form.
func (d *Dashboard) keyLimitsPage(w http.ResponseWriter, r *http.Request, s *session) {
	k, ok := d.activeKey(w, r, s)
	if !ok {
		return
	}
	f := keyLimitsForm{Key: k, limitFields: limitFieldsOf(k.Limits), Defaults: d.keyDefaults()}
	d.render(w, r, http.StatusOK, "key_limits", d.page(r, s, "limits", "Limits of "+k.Name, f))
}

// setKeyLimits sets all three limits of a key: an empty field clears
// its own limit. Every server applies the change within moments.
func (d *Dashboard) setKeyLimits(w http.ResponseWriter, r *http.Request, s *session) {
	k, ok := d.activeKey(w, r, s)
	if !ok {
		return
	}
	f := keyLimitsForm{Key: k, limitFields: readLimitFields(r), Errors: map[string]string{}, Defaults: d.keyDefaults()}
	u := f.update(f.Errors)
	if len(f.Errors) > 0 {
		d.render(w, r, http.StatusUnprocessableEntity, "key_limits", d.page(r, s, "limits", "Limits of "+k.Name, f))
		return
	}
	u.AccountID, u.KeyID = s.AccountID, k.ID
	if err := d.store.SetLimits(r.Context(), u); err != nil {
		d.keyError(w, r, fmt.Errorf("set limits of key %s: %w", k.ID, err))
		return
	}
	d.changed(s.AccountID)
	http.Redirect(w, r, Prefix+"/limits?msg=limits-saved", http.StatusSeeOther)
}

// activeKey returns the owner's active key named by the path, or answers
// the request itself: 404 for another account's key or none, a redirect
// to the keys page for a revoked one.
func (d *Dashboard) activeKey(w http.ResponseWriter, r *http.Request, s *session) (store.Key, bool) {
	k, err := d.ownKey(r, s, r.PathValue("id"))
	if err != nil {
		d.keyError(w, r, err)
		return store.Key{}, false
	}
	if k.Status == store.KeyRevoked {
		http.Redirect(w, r, Prefix+"/keys?msg=already-revoked", http.StatusSeeOther)
		return store.Key{}, false
	}
	return k, true
}
