package dashboard

import (
	"errors"
	"net/http"
	"slices"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// keysPage is the data of the API keys page.
type keysPage struct {
	Keys []store.Key // newest first
}

func (d *Dashboard) keys(w http.ResponseWriter, r *http.Request, s *session) {
	keys, err := d.store.ListKeys(r.Context(), s.AccountID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	slices.Reverse(keys)
	d.render(w, r, http.StatusOK, "keys", d.page(r, s, "keys", "API keys", keysPage{Keys: keys}))
}

// ownKey returns the signed-in account's key with that ID. A key of
// another account is ErrNotFound, exactly like one that does not exist.
func (d *Dashboard) ownKey(r *http.Request, s *session, id string) (store.Key, error) {
	k, err := d.store.KeyByID(r.Context(), id)
	if err != nil {
		return store.Key{}, err
	}
	if k.AccountID != s.AccountID {
		return store.Key{}, store.ErrNotFound
	}
	return k, nil
}

// keyError answers a failed key look-up: 404 for a key that is not the
// owner's, 500 otherwise.
func (d *Dashboard) keyError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		d.notFound(w, r)
		return
	}
	d.serverError(w, r, err)
}
