package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/password"
)

// passwordPage is the data of the password page.
type passwordPage struct {
	Errors map[string]string // by field
}

func (d *Dashboard) passwordForm(w http.ResponseWriter, r *http.Request, s *session) {
	d.render(w, r, http.StatusOK, "password", d.page(r, s, "password", "Change password", passwordPage{}))
}

// changePassword checks the current password (a wrong one counts as a
// failed sign-in), sets the new one, ends every session of the account
// and starts a new one for this browser.
func (d *Dashboard) changePassword(w http.ResponseWriter, r *http.Request, s *session) {
	f := r.PostForm
	pp := passwordPage{Errors: map[string]string{}}
	addr := clientAddr(r, d.proxies)
	if !d.admitAttempt(w, r, s.Account.Email, addr) {
		return
	}
	_, ok, err := d.checkPassword(r, s.Account.Email, f.Get("current"))
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if ok {
		d.byEmail.forgive(s.Account.Email)
		d.byAddr.forgive(addr)
	} else {
		pp.Errors["current"] = "This is not your current password."
	}
	pw := f.Get("new")
	hash, err := d.hashPassword(r.Context(), pw)
	if errors.Is(err, password.ErrTooShort) {
		pp.Errors["new"] = "Use at least 8 characters."
	} else if err != nil {
		d.serverError(w, r, err)
		return
	} else if f.Get("confirm") != pw {
		pp.Errors["confirm"] = "The two new passwords differ."
	}
	if len(pp.Errors) > 0 {
		d.render(w, r, http.StatusUnprocessableEntity, "password", d.page(r, s, "password", "Change password", pp))
		return
	}
	if err := d.store.SetPassword(r.Context(), s.AccountID, hash); err != nil {
		d.serverError(w, r, err)
		return
	}
	// SetPassword ended this session too; the browser's cookie names
	// nothing now, so signIn only adds the new one.
	if err := d.signIn(w, r, s.AccountID); err != nil {
		http.SetCookie(w, d.cookie(r, sessionCookie, "", time.Time{}))
		d.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/password?msg=password-changed", http.StatusSeeOther)
}
