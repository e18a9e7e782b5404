package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// loginPage is the data of the sign-in page.
type loginPage struct {
	Email string
	Next  string
	Error string
}

// flashes are the notices a redirect can ask a page to show, by code:
// only these fixed texts are ever shown.
var flashes = map[string]string{
	"signed-out":       "You are signed out.",
	"password-changed": "Your password was changed. Every other session was signed out.",
	"key-revoked":      "The key was revoked. Requests with it are refused from now on.",
	"already-revoked":  "That key was already revoked.",
	"alert-added":      "The alert was added.",
	"alert-removed":    "The alert was removed. Alerts it already sent stay in the history.",
	"limits-saved":     "The limits were saved. Every server applies them within moments.",
	"account-created":  "The account was created. Its owner can sign in with the password you set.",
	"account-saved":    "The account's limits and models were saved. Every server applies them within moments.",
	"account-disabled": "The account was disabled: its keys are refused and its owner is signed out.",
	"account-enabled":  "The account was enabled again: its active keys work and its owner can sign in.",
	"password-set":     "The account's password was set. Its owner was signed out everywhere.",
}

func flash(r *http.Request) string { return flashes[r.URL.Query().Get("msg")] }

func (d *Dashboard) loginForm(w http.ResponseWriter, r *http.Request) {
	if _, err := d.loadSession(r); err == nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	d.renderLogin(w, r, http.StatusOK, loginPage{Next: r.URL.Query().Get("next")})
}

func (d *Dashboard) renderLogin(w http.ResponseWriter, r *http.Request, status int, lp loginPage) {
	d.render(w, r, status, "login", page{Title: "Sign in", CSRF: d.loginCSRF(w, r), Flash: flash(r), Data: lp})
}

// login checks an email and password. Every failure looks the same and
// costs the same time (an argon2id check runs whether or not the account
// exists or has a password), and counts against the email and the
// client's address; past their limits the check is delayed (see
// admitAttempt), and the right password still gets in.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	if !d.parseForm(w, r) {
		return
	}
	lp := loginPage{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: r.PostForm.Get("next")}
	if !validLoginCSRF(r) {
		lp.Error = "The sign-in form expired. Please try again."
		d.renderLogin(w, r, http.StatusForbidden, lp)
		return
	}
	email, addr := store.NormalizeEmail(lp.Email), clientAddr(r, d.proxies)
	if !d.admitAttempt(w, r, email, addr) {
		return
	}
	acct, ok, err := d.checkPassword(r, email, r.PostForm.Get("password"))
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if !ok {
		lp.Error = "The email or password is not correct."
		d.renderLogin(w, r, http.StatusUnauthorized, lp)
		return
	}
	d.byEmail.reset(email)
	d.byAddr.forgive(addr)
	if acct.Disabled {
		lp.Error = "This account is disabled. Ask the operator of this gateway to enable it."
		d.renderLogin(w, r, http.StatusForbidden, lp)
		return
	}
	if err := d.signIn(w, r, acct.ID); err != nil {
		d.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(lp.Next), http.StatusSeeOther)
}

// checkPassword reports whether pw is the password of the account with
// that email. An unknown account, or one without a password, is checked
// against a dummy hash so that it takes as long as a wrong password.
func (d *Dashboard) checkPassword(r *http.Request, email, pw string) (store.Account, bool, error) {
	acct, err := d.store.AccountByEmail(r.Context(), email)
	hash := ""
	if err == nil {
		hash, err = d.store.PasswordHash(r.Context(), email)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Account{}, false, err
	}
	if hash == "" {
		acct, hash = store.Account{}, d.dummyHash()
	}
	ok := false
	err = d.argon2(r.Context(), func() { ok = password.Check(pw, hash) && acct.ID != "" })
	return acct, ok, err
}

// maxArgon2 bounds the argon2id checks and hashes that run at once: each
// takes 64 MiB, and a flood of sign-ins must not exhaust memory.
const maxArgon2 = 4

// argon2 runs fn, an argon2id check or hash, when a slot is free.
func (d *Dashboard) argon2(ctx context.Context, fn func()) error {
	select {
	case d.argonSlots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-d.argonSlots }()
	fn()
	return nil
}

// hashPassword hashes a new password; password.ErrTooShort when it is.
func (d *Dashboard) hashPassword(ctx context.Context, pw string) (string, error) {
	var hash string
	var err error
	if werr := d.argon2(ctx, func() { hash, err = password.Hash(pw) }); werr != nil {
		return "", werr
	}
	return hash, err
}
