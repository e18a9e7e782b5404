package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

func TestLogin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		ctx := context.Background()
		h.account(t, "owner@example.com")
		if _, err := h.Store.CreateAccount(ctx, store.NewAccount{Email: "nopass@example.com"}); err != nil {
			t.Fatal(err)
		}
		disabled := h.account(t, "off@example.com")
		h.exec(t, `UPDATE accounts SET disabled = TRUE WHERE id = $1`, disabled.ID)

		tests := []struct {
			name, email, password string
			status                int
			message               string
		}{
			{"wrong password", "owner@example.com", "not the password", http.StatusUnauthorized, "The email or password is not correct."},
			{"unknown email", "nobody@example.com", testPassword, http.StatusUnauthorized, "The email or password is not correct."},
			{"account without a password", "nopass@example.com", "", http.StatusUnauthorized, "The email or password is not correct."},
			{"disabled account", "off@example.com", testPassword, http.StatusForbidden, "This account is disabled."},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				br := h.browser(t)
				r := br.login(tt.email, tt.password)
				wantStatus(t, "sign in", r, tt.status)
				if !strings.Contains(r.Body, tt.message) {
					t.Errorf("page does not say %q:\n%s", tt.message, r.Body)
				}
				if br.cookie("switchyard_session") != "" {
					t.Error("a failed sign-in set a session cookie")
				}
				wantRedirect(t, "overview after a failed sign-in", br.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
			})
		}

		t.Run("right password", func(t *testing.T) {
			br := h.browser(t)
			r := br.login(" Owner@Example.com ", testPassword)
			wantRedirect(t, "sign in", r, "/dashboard")
			var c *http.Cookie
			for _, ck := range r.Cookies() {
				if ck.Name == "switchyard_session" {
					c = ck
				}
			}
			if c == nil {
				t.Fatal("no session cookie")
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/dashboard" || c.Secure {
				t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/dashboard, not Secure over plain HTTP", c)
			}
			if want := now.Add(12 * time.Hour); !c.Expires.Equal(want) {
				t.Errorf("cookie expires %v, want %v", c.Expires, want)
			}
			r = br.get("/dashboard")
			wantStatus(t, "overview", r, http.StatusOK)
			if !strings.Contains(r.Body, "owner@example.com") {
				t.Errorf("overview does not name the account:\n%s", r.Body)
			}
		})

		t.Run("form without its token", func(t *testing.T) {
			br := h.browser(t)
			br.get("/dashboard/login")
			r := br.post("/dashboard/login", url.Values{"email": {"owner@example.com"}, "password": {testPassword}, "csrf": {"forged"}})
			wantStatus(t, "sign in with a forged token", r, http.StatusForbidden)
			if br.cookie("switchyard_session") != "" {
				t.Error("signed in without the form's token")
			}
		})
	})
}

// TestLoginNext checks that a signed-out visitor is sent to the sign-in
// page and back to where they were going, never to another site.
func TestLoginNext(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	h.account(t, "owner@example.com")
	br := h.browser(t)
	r := br.get("/dashboard/usage?by=model")
	wantRedirect(t, "signed out", r, "/dashboard/login?next=%2Fdashboard%2Fusage%3Fby%3Dmodel")
	r = br.get(r.Header.Get("Location"))
	if !strings.Contains(r.Body, `name="next" value="/dashboard/usage?by=model"`) {
		t.Fatalf("sign-in form does not carry next:\n%s", r.Body)
	}
	form := url.Values{"email": {"owner@example.com"}, "password": {testPassword}, "next": {"/dashboard/usage?by=model"}}
	wantRedirect(t, "sign in", br.submit("/dashboard/login", "/dashboard/login", form), "/dashboard/usage?by=model")

	other := h.browser(t)
	form.Set("next", "https://evil.example/")
	wantRedirect(t, "sign in with a foreign next", other.submit("/dashboard/login", "/dashboard/login", form), "/dashboard")
	// Signed in, the sign-in page sends on.
	wantRedirect(t, "sign-in page when signed in", other.get("/dashboard/login"), "/dashboard")
}

// TestSessionRotation checks that signing in replaces the browser's
// session: a token planted in the browser before sign-in is dead after.
func TestSessionRotation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		a := h.account(t, "owner@example.com")
		br := h.browser(t)
		token := br.csrf("/dashboard/login")
		br.signIn(a)
		before := br.cookie("switchyard_session")
		r := br.post("/dashboard/login", url.Values{"email": {"owner@example.com"}, "password": {testPassword}, "csrf": {token}})
		wantRedirect(t, "sign in", r, "/dashboard")
		after := br.cookie("switchyard_session")
		if after == "" || after == before {
			t.Fatalf("session cookie %q before, %q after sign-in: want a new one", before, after)
		}
		old := h.browser(t)
		old.setCookie("switchyard_session", before)
		wantRedirect(t, "old session", old.get("/dashboard/keys"), "/dashboard/login?next=%2Fdashboard%2Fkeys")
		wantStatus(t, "new session", br.get("/dashboard/keys"), http.StatusOK)
	})
}

func TestSessionExpiry(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], func(o *dashboard.Options) { o.Config.SessionTTL = 2 * time.Hour })
	h.account(t, "owner@example.com")
	br := h.browser(t)
	wantRedirect(t, "sign in", br.login("owner@example.com", testPassword), "/dashboard")
	h.Clock.Advance(2*time.Hour - time.Second)
	wantStatus(t, "just before expiry", br.get("/dashboard"), http.StatusOK)
	h.Clock.Advance(time.Second)
	wantRedirect(t, "at expiry", br.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
}

// TestDisabledAccountSignedOut checks that disabling an account ends its
// sessions' access at once.
func TestDisabledAccountSignedOut(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], nil)
	a := h.account(t, "owner@example.com")
	br := h.browser(t)
	br.signIn(a)
	wantStatus(t, "enabled", br.get("/dashboard"), http.StatusOK)
	h.exec(t, `UPDATE accounts SET disabled = TRUE WHERE id = $1`, a.ID)
	wantRedirect(t, "disabled", br.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
}

func TestLogout(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		a := h.account(t, "owner@example.com")
		br := h.browser(t)
		br.signIn(a)
		token := br.cookie("switchyard_session")
		wantStatus(t, "logout without the form's token", br.post("/dashboard/logout", url.Values{"csrf": {"x"}}), http.StatusForbidden)
		wantStatus(t, "still signed in", br.get("/dashboard"), http.StatusOK)

		r := br.submit("/dashboard", "/dashboard/logout", nil)
		wantRedirect(t, "logout", r, "/dashboard/login?msg=signed-out")
		if br.cookie("switchyard_session") != "" {
			t.Error("the session cookie survived logout")
		}
		if r := br.get("/dashboard/login?msg=signed-out"); !strings.Contains(r.Body, "You are signed out.") {
			t.Errorf("sign-in page after logout:\n%s", r.Body)
		}
		// The session is gone from the store, not only from the browser.
		replay := h.browser(t)
		replay.setCookie("switchyard_session", token)
		wantRedirect(t, "replayed cookie", replay.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
	})
}

func TestSignup(t *testing.T) {
	t.Run("off by default", func(t *testing.T) {
		h := newHarness(t, storetest.Backends(t)[0], nil)
		br := h.browser(t)
		wantStatus(t, "sign-up page", br.get("/dashboard/signup"), http.StatusNotFound)
		wantStatus(t, "sign-up", br.post("/dashboard/signup", url.Values{"email": {"x@example.com"}}), http.StatusNotFound)
		if strings.Contains(br.get("/dashboard/login").Body, "/dashboard/signup") {
			t.Error("the sign-in page offers sign-up")
		}
	})
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, func(o *dashboard.Options) { o.Config.AllowSignup = true })
		h.account(t, "taken@example.com")
		tests := []struct {
			name, email, pw, confirm string
			want                     string
		}{
			{"bad email", "not an email", "long enough", "long enough", "Enter an email address"},
			{"short password", "new@example.com", "short", "short", "Use at least 8 characters."},
			{"passwords differ", "new@example.com", "long enough", "long enougH", "The two passwords differ."},
			{"email taken", "Taken@example.com", "long enough", "long enough", "exists already"},
		}
		for _, tt := range tests {
			br := h.browser(t)
			r := br.submit("/dashboard/signup", "/dashboard/signup", url.Values{"email": {tt.email}, "password": {tt.pw}, "confirm": {tt.confirm}})
			wantStatus(t, tt.name, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, tt.want) || !strings.Contains(r.Body, `aria-invalid="true"`) {
				t.Errorf("%s: page does not say %q on a marked field:\n%s", tt.name, tt.want, r.Body)
			}
		}
		br := h.browser(t)
		r := br.submit("/dashboard/signup", "/dashboard/signup", url.Values{"email": {"new@example.com"}, "password": {"long enough"}, "confirm": {"long enough"}})
		wantRedirect(t, "sign up", r, "/dashboard")
		if r := br.get("/dashboard"); !strings.Contains(r.Body, "new@example.com") {
			t.Errorf("not signed in after sign-up:\n%s", r.Body)
		}
		if _, err := h.Store.AccountByEmail(context.Background(), "new@example.com"); err != nil {
			t.Error(err)
		}
	})
}

func TestChangePassword(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		h := newHarness(t, b, nil)
		a := h.account(t, "owner@example.com")
		br, elsewhere := h.browser(t), h.browser(t)
		br.signIn(a)
		elsewhere.signIn(a)

		tests := []struct {
			name, current, pw, confirm, want string
		}{
			{"wrong current", "nope nope", "new password", "new password", "This is not your current password."},
			{"short", testPassword, "short", "short", "Use at least 8 characters."},
			{"differ", testPassword, "new password", "new passworD", "The two new passwords differ."},
		}
		for _, tt := range tests {
			r := br.submit("/dashboard/password", "/dashboard/password", url.Values{"current": {tt.current}, "new": {tt.pw}, "confirm": {tt.confirm}})
			wantStatus(t, tt.name, r, http.StatusUnprocessableEntity)
			if !strings.Contains(r.Body, tt.want) {
				t.Errorf("%s: page does not say %q:\n%s", tt.name, tt.want, r.Body)
			}
		}
		r := br.submit("/dashboard/password", "/dashboard/password", url.Values{"current": {testPassword}, "new": {"new password"}, "confirm": {"new password"}})
		wantRedirect(t, "change", r, "/dashboard/password?msg=password-changed")
		if r := br.get("/dashboard/password?msg=password-changed"); r.StatusCode != 200 || !strings.Contains(r.Body, "Your password was changed.") {
			t.Errorf("this browser after the change: %d\n%s", r.StatusCode, r.Body)
		}
		wantRedirect(t, "other session after the change", elsewhere.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
		wantStatus(t, "old password", h.browser(t).login("owner@example.com", testPassword), http.StatusUnauthorized)
		wantRedirect(t, "new password", h.browser(t).login("owner@example.com", "new password"), "/dashboard")
	})
}
