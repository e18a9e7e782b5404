package dashboard

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

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
// client's address; past their limits the answer is 429.
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
	email, addr, now := store.NormalizeEmail(lp.Email), clientAddr(r.RemoteAddr), d.now()
	if wait := max(d.byEmail.wait(email, now), d.byAddr.wait(addr, now)); wait > 0 {
		d.tooManyAttempts(w, r, wait)
		return
	}
	acct, ok, err := d.checkPassword(r, email, r.PostForm.Get("password"))
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if !ok {
		d.byEmail.fail(email, now)
		d.byAddr.fail(addr, now)
		lp.Error = "The email or password is not correct."
		d.renderLogin(w, r, http.StatusUnauthorized, lp)
		return
	}
	if acct.Disabled {
		lp.Error = "This account is disabled. Ask the operator of this gateway to enable it."
		d.renderLogin(w, r, http.StatusForbidden, lp)
		return
	}
	d.byEmail.reset(email)
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
		password.Check(pw, d.dummyHash())
		return store.Account{}, false, nil
	}
	return acct, password.Check(pw, hash), nil
}

// tooManyAttempts answers 429 with the wait in Retry-After and in words.
func (d *Dashboard) tooManyAttempts(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int64(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	mins := (secs + 59) / 60
	unit := "minutes"
	if mins == 1 {
		unit = "minute"
	}
	d.renderError(w, r, http.StatusTooManyRequests, "Too many attempts",
		fmt.Sprintf("There were too many failed sign-in attempts for this account or from your network. "+
			"For your security, try again in %d %s.", mins, unit))
}
