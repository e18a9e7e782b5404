package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"
)

// Two layers guard every state change. http.CrossOriginProtection (in
// routes) refuses cross-site POSTs that browsers mark with Sec-Fetch-Site
// or Origin. And every form carries a token that a page of another site
// cannot read:
//
//   - signed in, the session's token: an HMAC of the session's secret,
//     so nothing more is stored and it changes with every sign-in;
//   - signed out (sign-in and sign-up forms), a random token also kept in
//     the loginCSRFCookie (double submit), which stops a site from
//     signing a visitor in to an account of its own.

// loginCSRFCookie holds the token of the sign-in and sign-up forms.
const loginCSRFCookie = "switchyard_login_csrf"

// csrfToken returns the form token of the session whose cookie holds
// token.
func csrfToken(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("switchyard dashboard csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF reports whether a form's token is the expected one, in
// constant time.
func validCSRF(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// loginCSRF returns the signed-out form token of the browser, setting a
// new one in its cookie when it has none.
func (d *Dashboard) loginCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(loginCSRFCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	token := newToken()
	http.SetCookie(w, d.cookie(r, loginCSRFCookie, token, d.now().Add(24*time.Hour)))
	return token
}

// validLoginCSRF reports whether a signed-out form carries the token of
// the browser's cookie.
func validLoginCSRF(r *http.Request) bool {
	c, err := r.Cookie(loginCSRFCookie)
	return err == nil && validCSRF(r.PostForm.Get("csrf"), c.Value)
}
