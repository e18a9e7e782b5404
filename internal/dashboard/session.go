package dashboard

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// sessionCookie holds the session's token: 32 random bytes, base64url.
// The store keeps only its SHA-256.
const sessionCookie = "switchyard_session"

// touchInterval is how often at most a session's last_seen_at is written.
const touchInterval = time.Minute

// maxFormBytes bounds the body of a dashboard form.
const maxFormBytes = 64 << 10

// session is the signed-in owner of a request.
type session struct {
	store.Session
	Account store.Account
	token   string // the cookie's value
}

// authedHandler serves a request of a signed-in owner.
type authedHandler func(w http.ResponseWriter, r *http.Request, s *session)

// auth runs h for a signed-in owner. Others are sent to the sign-in page
// (and back here after it). A POST must carry the session's CSRF token.
func (d *Dashboard) auth(h authedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := d.loadSession(r)
		if err != nil && !errors.Is(err, errNoSession) {
			d.serverError(w, r, err)
			return
		}
		if err != nil {
			next := ""
			if r.Method == http.MethodGet {
				next = "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, Prefix+"/login"+next, http.StatusSeeOther)
			return
		}
		server.RecordFrom(r.Context()).Account = s.AccountID
		if r.Method == http.MethodPost {
			if !d.parseForm(w, r) {
				return
			}
			if !validCSRF(r.PostForm.Get("csrf"), csrfToken(s.token)) {
				d.renderError(w, r, http.StatusForbidden, "Form expired",
					"This form is no longer valid, perhaps because you signed in again elsewhere. Go back, reload the page and try again.")
				return
			}
		}
		h(w, r, s)
	})
}

// parseForm reads a form body of at most maxFormBytes, whose every field
// is UTF-8 without NUL, as a browser sends what is typed into a form (the
// store could not hold the rest). It answers the request itself and
// returns false when the form is not so. What else a field may hold is
// its own form's check, which names the field beside it.
func (d *Dashboard) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		d.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return false
	}
	for name, vs := range r.Form {
		for _, v := range vs {
			if !store.Storable(name) || !store.Storable(v) {
				d.renderError(w, r, http.StatusBadRequest, "Bad request",
					fmt.Sprintf("The field %q holds bytes that are not UTF-8 text, or NUL. Type it again and resend the form.", name))
				return false
			}
		}
	}
	return true
}

// isText reports whether s is UTF-8 without control characters.
func isText(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// errNoSession reports a request without a live session: no cookie, an
// unknown or expired one, or one of a disabled account.
var errNoSession = errors.New("not signed in")

// loadSession returns the request's live session with its account.
func (d *Dashboard) loadSession(r *http.Request) (*session, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, errNoSession
	}
	now := d.now()
	ss, err := d.store.SessionByToken(r.Context(), tokenHash(c.Value), now)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	acct, err := d.store.AccountByID(r.Context(), ss.AccountID)
	if errors.Is(err, store.ErrNotFound) || err == nil && acct.Disabled {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	if now.Sub(ss.LastSeenAt) >= touchInterval {
		if err := d.store.TouchSession(r.Context(), ss.ID, now); err != nil {
			d.log.Warn("touch dashboard session", "err", err)
		}
	}
	return &session{Session: ss, Account: acct, token: c.Value}, nil
}

// signIn starts a session for the account, replacing the browser's
// earlier one (rotation: a token planted before sign-in is worthless
// after it), and sets its cookie.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request, accountID string) error {
	replaces := ""
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		replaces = tokenHash(c.Value)
	}
	token := newToken()
	now := d.now()
	ss, err := d.store.CreateSession(r.Context(), store.NewSession{AccountID: accountID, TokenHash: tokenHash(token),
		CreatedAt: now, ExpiresAt: now.Add(d.cfg.SessionTTL), Replaces: replaces})
	if err != nil {
		return err
	}
	http.SetCookie(w, d.cookie(r, sessionCookie, token, ss.ExpiresAt))
	return nil
}

// cookie returns a dashboard cookie: HttpOnly, SameSite=Lax, for the
// dashboard's paths only, and Secure as configured.
func (d *Dashboard) cookie(r *http.Request, name, value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: d.cfg.SecureCookies == "always" || d.cfg.SecureCookies != "never" && r.TLS != nil}
	if expires.IsZero() {
		c.MaxAge = -1
	} else {
		c.Expires = expires.UTC()
		c.MaxAge = max(1, int(expires.Sub(d.now()).Seconds()))
	}
	return c
}

// newToken returns 32 random bytes, base64url without padding.
func newToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// tokenHash returns the hex SHA-256 of a token, the form the store keeps.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// safeNext returns next when it is a path inside the dashboard, else the
// overview: a sign-in link must not send the owner to another site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.ContainsAny(next, "\\\r\n") ||
		strings.HasPrefix(next, "//") || path.Clean(u.Path) != u.Path || !(u.Path == Prefix || strings.HasPrefix(u.Path, Prefix+"/")) ||
		u.Path == Prefix+"/login" || u.Path == Prefix+"/signup" {
		return Prefix
	}
	return u.RequestURI()
}
