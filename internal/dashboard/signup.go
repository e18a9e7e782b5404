package dashboard

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// signupPage is the data of the sign-up page.
type signupPage struct {
	Email  string
	Errors map[string]string // by field
}

func (d *Dashboard) signupForm(w http.ResponseWriter, r *http.Request) {
	if !d.cfg.AllowSignup {
		d.notFound(w, r)
		return
	}
	d.renderSignup(w, r, http.StatusOK, signupPage{})
}

func (d *Dashboard) renderSignup(w http.ResponseWriter, r *http.Request, status int, sp signupPage) {
	d.render(w, r, status, "signup", page{Title: "Create an account", CSRF: d.loginCSRF(w, r), Data: sp})
}

// signup creates an account with a password and signs it in; only when
// dashboard.allow_signup is set.
func (d *Dashboard) signup(w http.ResponseWriter, r *http.Request) {
	if !d.cfg.AllowSignup {
		d.notFound(w, r)
		return
	}
	if !d.parseForm(w, r) {
		return
	}
	f := r.PostForm
	sp := signupPage{Email: strings.TrimSpace(f.Get("email")), Errors: map[string]string{}}
	if !validLoginCSRF(r) {
		sp.Errors["form"] = "The form expired. Please try again."
		d.renderSignup(w, r, http.StatusForbidden, sp)
		return
	}
	// Every sign-up counts against the address, like a failed sign-in:
	// an address cannot create accounts without bound.
	if wait := d.byAddr.take(clientAddr(r, d.proxies), d.now()); wait > 0 {
		d.tooManyAttempts(w, r, wait)
		return
	}
	if !validEmail(sp.Email) {
		sp.Errors["email"] = "Enter an email address such as owner@example.com."
	}
	pw := f.Get("password")
	hash, err := d.hashPassword(r.Context(), pw)
	if errors.Is(err, password.ErrTooShort) {
		sp.Errors["password"] = "Use at least 8 characters."
	} else if err != nil {
		d.serverError(w, r, err)
		return
	} else if f.Get("confirm") != pw {
		sp.Errors["confirm"] = "The two passwords differ."
	}
	if len(sp.Errors) > 0 {
		d.renderSignup(w, r, http.StatusUnprocessableEntity, sp)
		return
	}
	acct, err := d.store.CreateAccount(r.Context(), store.NewAccount{Email: sp.Email, PasswordHash: hash})
	if errors.Is(err, store.ErrExists) {
		sp.Errors["email"] = "An account with this email exists already. Sign in instead."
		d.renderSignup(w, r, http.StatusUnprocessableEntity, sp)
		return
	}
	if err == nil {
		err = d.signIn(w, r, acct.ID)
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// validEmail reports whether s is a bare email address.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && len(s) <= 254
}
