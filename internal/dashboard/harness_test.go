package dashboard_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// testPassword is every test account's password. Its argon2id hash is
// computed once: a check takes half a second under -race, so most tests
// sign in by planting a session (see browser.signIn) and only the
// sign-in tests go through the form.
const testPassword = "correct horse battery"

var testHash = sync.OnceValue(func() string {
	h, err := password.Hash(testPassword)
	if err != nil {
		panic(err)
	}
	return h
})

// now is the tests' starting time: late on the 22nd of a month.
var now = time.Date(2026, 11, 22, 15, 30, 0, 0, time.UTC)

// clock is a settable clock.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Sleep is the dashboard's sleep: it records d and advances the clock by
// it, without waiting.
func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return nil
}

// Slept returns the sleeps since the last call.
func (c *clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slept
	c.slept = nil
	return s
}

// revoker records revocations and passes them to the store.
type revoker struct {
	s *store.Store

	mu  sync.Mutex
	ids []string
}

func (r *revoker) RevokeKey(ctx context.Context, id string) (store.Key, error) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
	return r.s.RevokeKey(ctx, id)
}

func (r *revoker) revoked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// harness is a dashboard on a store, served by httptest.
type harness struct {
	URL     string
	Store   *store.Store
	Clock   *clock
	Revoker *revoker
	D       *dashboard.Dashboard
	dbURL   string
}

// newHarness serves a dashboard on a fresh store of backend b; mut may
// adjust its options.
func newHarness(t *testing.T, b storetest.Backend, mut func(*dashboard.Options)) *harness {
	t.Helper()
	st := storetest.Open(t, b.URL)
	h := &harness{Store: st, Clock: &clock{t: now}, Revoker: &revoker{s: st}, dbURL: b.URL}
	opt := dashboard.Options{
		Store:    st,
		Revoker:  h.Revoker,
		Config:   config.Default().Dashboard,
		Limits:   config.Limits{KeyRPM: 60, AccountTPM: 100000},
		Metering: true,
		Now:      h.Clock.Now,
		Sleep:    h.Clock.Sleep,
		Log:      slog.New(slog.DiscardHandler),
	}
	if mut != nil {
		mut(&opt)
	}
	d, err := dashboard.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	h.D = d
	srv := httptest.NewServer(d.Mount(nil))
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	return h
}

// exec runs SQL on the harness's database through a connection of its
// own, for what the store offers no method for (disabling an account).
func (h *harness) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	driver := "sqlite"
	if strings.HasPrefix(h.dbURL, "postgres") {
		driver = "pgx"
	}
	db, err := sql.Open(driver, h.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatal(err)
	}
}

// account creates an account with testPassword.
func (h *harness) account(t *testing.T, email string) store.Account {
	t.Helper()
	a, err := h.Store.CreateAccount(context.Background(), store.NewAccount{Email: email, PasswordHash: testHash()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// key creates a key of the account, as the CLI would.
func (h *harness) key(t *testing.T, accountID, name string) store.Key {
	t.Helper()
	full := apikey.Generate()
	hash, _ := apikey.Parse(full)
	k, err := h.Store.CreateKey(context.Background(), store.NewKey{AccountID: accountID, Name: name, Hash: hash.String(), Hint: apikey.Hint(full)})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// browser is a client with its own cookies that does not follow
// redirects, so that tests see them.
type browser struct {
	t *testing.T
	h *harness
	c *http.Client
	// forwardedFor, if set, is sent as X-Forwarded-For.
	forwardedFor string
}

func (h *harness) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, h: h, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// signIn plants a session for the account, as a sign-in would, without
// the (slow) password check.
func (b *browser) signIn(a store.Account) {
	b.t.Helper()
	token := rand.Text()
	sum := sha256.Sum256([]byte(token))
	_, err := b.h.Store.CreateSession(context.Background(), store.NewSession{AccountID: a.ID,
		TokenHash: hex.EncodeToString(sum[:]), CreatedAt: b.h.Clock.Now(), ExpiresAt: b.h.Clock.Now().Add(time.Hour)})
	if err != nil {
		b.t.Fatal(err)
	}
	b.setCookie("switchyard_session", token)
}

func (b *browser) setCookie(name, value string) {
	u, _ := url.Parse(b.h.URL + "/dashboard")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/dashboard"}})
}

func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.h.URL + "/dashboard")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// response is a read response.
type response struct {
	*http.Response
	Body string
}

func (b *browser) do(req *http.Request) response {
	b.t.Helper()
	if b.forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", b.forwardedFor)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return response{resp, string(body)}
}

func (b *browser) get(path string) response {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.h.URL+path, nil)
	return b.do(req)
}

// post sends a form as is.
func (b *browser) post(path string, form url.Values) response {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.h.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the form token of the page at path, as a browser would
// find it in the form.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	r := b.get(path)
	m := csrfField.FindStringSubmatch(r.Body)
	if m == nil {
		b.t.Fatalf("GET %s: %d, no csrf field in\n%s", path, r.StatusCode, r.Body)
	}
	return m[1]
}

// submit posts form to action with the CSRF token of the page at from.
func (b *browser) submit(from, action string, form url.Values) response {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf(from))
	return b.post(action, form)
}

// login signs in through the form.
func (b *browser) login(email, pw string) response {
	b.t.Helper()
	return b.submit("/dashboard/login", "/dashboard/login", url.Values{"email": {email}, "password": {pw}})
}

// wantStatus fails the test unless r has status want.
func wantStatus(t *testing.T, what string, r response, want int) {
	t.Helper()
	if r.StatusCode != want {
		t.Fatalf("%s: status %d, want %d; body:\n%s", what, r.StatusCode, want, r.Body)
	}
}

// wantRedirect fails the test unless r is a 303 to location.
func wantRedirect(t *testing.T, what string, r response, location string) {
	t.Helper()
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != location {
		t.Fatalf("%s: %d to %q, want 303 to %q; body:\n%s", what, r.StatusCode, r.Header.Get("Location"), location, r.Body)
	}
}

// tableRow returns the table row of body that starts with name, up to
// its </tr>.
func tableRow(t *testing.T, body, name string) string {
	t.Helper()
	i := strings.Index(body, name)
	if i < 0 {
		t.Fatalf("no row %q:\n%s", name, body)
	}
	return body[i : i+strings.Index(body[i:], "</tr>")]
}
