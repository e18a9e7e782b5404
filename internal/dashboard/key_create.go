package dashboard

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// keyForm is the data of the new-key form, as typed.
type keyForm struct {
	Name, Models string
	limitFields
	Errors   map[string]string // by field
	Defaults rateDefaults
}

// keyCreatedPage shows a new key, the only time it is shown.
type keyCreatedPage struct {
	Key    store.Key
	Secret string // the full key
}

func (d *Dashboard) keyForm(w http.ResponseWriter, r *http.Request, s *session) {
	d.render(w, r, http.StatusOK, "key_new", d.page(r, s, "keys", "Create an API key", keyForm{Defaults: d.keyDefaults()}))
}

// createKey creates a key with apikey.Generate, as `switchyard keys
// create` does, and its limits, and shows the key once: the answer is the
// page itself (not a redirect) and is never cached.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, s *session) {
	f := keyForm{Name: strings.TrimSpace(r.PostForm.Get("name")), Models: r.PostForm.Get("models"),
		limitFields: readLimitFields(r), Defaults: d.keyDefaults()}
	models, lim, hasLimits := f.check()
	if len(f.Errors) > 0 {
		d.render(w, r, http.StatusUnprocessableEntity, "key_new", d.page(r, s, "keys", "Create an API key", f))
		return
	}
	full := apikey.Generate()
	hash, _ := apikey.Parse(full)
	k, err := d.store.CreateKey(r.Context(), store.NewKey{AccountID: s.AccountID, Name: f.Name, Hash: hash.String(),
		Hint: apikey.Hint(full), Models: models})
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if hasLimits {
		lim.AccountID, lim.KeyID = s.AccountID, k.ID
		if err := d.store.SetLimits(r.Context(), lim); err != nil {
			// The key was never shown: revoke it rather than leave it
			// without the limits its owner asked for.
			if _, rerr := d.revoker.RevokeKey(r.Context(), k.ID); rerr != nil {
				d.log.Error("revoke key whose limits failed", "key_id", k.ID, "err", rerr)
			}
			d.serverError(w, r, fmt.Errorf("set limits of new key %s: %w", k.ID, err))
			return
		}
		k.Limits = store.Limits{RPM: deref(lim.RPM), TPM: deref(lim.TPM), MonthlyBudget: deref(lim.MonthlyBudget)}
	}
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, http.StatusOK, "key_created", d.page(r, s, "keys", "Your new API key", keyCreatedPage{Key: k, Secret: full}))
}

// check validates the form, filling f.Errors, and returns the model
// allow-list and the limits to set (and whether any is).
func (f *keyForm) check() ([]string, store.LimitsUpdate, bool) {
	f.Errors = map[string]string{}
	if err := apikey.CheckName(f.Name); err != nil {
		f.Errors["name"] = sentence(err)
	}
	models, bad := route.ParseAllowList(f.Models)
	if bad != "" {
		f.Errors["models"] = fmt.Sprintf("“%s” is not a model ID (a single * at the end matches a prefix).", bad)
	}
	// On a new key, limits left empty or 0 are not set at all.
	var u store.LimitsUpdate
	rpm, tpm, budget := f.parse(f.Errors)
	if rpm > 0 {
		u.RPM = &rpm
	}
	if tpm > 0 {
		u.TPM = &tpm
	}
	if budget > 0 {
		u.MonthlyBudget = &budget
	}
	return models, u, u.RPM != nil || u.TPM != nil || u.MonthlyBudget != nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
