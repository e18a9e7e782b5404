package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestLoginThrottle checks the limits on failed sign-ins, per email and
// per client address (lowered here: each attempt costs an argon2id
// check). Past a limit the attempt is held, longer with each failure,
// and the right password still gets in: issue 13, where 5 failures per
// email, or 20 from a proxy everybody shares, refused it for 15 minutes.
func TestLoginThrottle(t *testing.T) {
	const s = time.Second
	type attempt struct {
		from, email, password string // from: X-Forwarded-For
		wantStatus            int    // 303 is signed in
		wantSlept             []time.Duration
	}
	wrong := func(from, email string, slept ...time.Duration) attempt {
		return attempt{from, email, "wrong password", http.StatusUnauthorized, slept}
	}
	right := func(from, email string, slept ...time.Duration) attempt {
		return attempt{from, email, testPassword, http.StatusSeeOther, slept}
	}
	tests := []struct {
		name            string
		perEmail, perIP int
		proxies         []string
		attempts        []attempt
	}{
		{"email past its limit", 2, 100, nil, []attempt{
			wrong("", "owner@example.com"),
			wrong("", "owner@example.com"),
			wrong("", "owner@example.com", s/2),
			wrong("", "owner@example.com", s),
			right("", "owner@example.com", 2*s),
			wrong("", "owner@example.com"), // a sign-in clears the email's count
		}},
		{"address past its limit", 100, 3, nil, []attempt{
			wrong("", "x1@example.com"),
			wrong("", "x2@example.com"),
			wrong("", "x3@example.com"),
			right("", "owner@example.com", s/2),
			right("", "second@example.com", s/2),
			wrong("", "x4@example.com", s/2),
		}},
		{"untrusted X-Forwarded-For is ignored", 100, 3, nil, []attempt{
			wrong("198.51.100.7", "x1@example.com"),
			wrong("198.51.100.7", "x2@example.com"),
			wrong("198.51.100.7", "x3@example.com"),
			right("203.0.113.9", "owner@example.com", s/2),
		}},
		{"behind a trusted proxy, per client", 100, 3, []string{"127.0.0.0/8"}, []attempt{
			wrong("198.51.100.7", "x1@example.com"),
			wrong("198.51.100.7", "x2@example.com"),
			wrong("198.51.100.7", "x3@example.com"),
			right("203.0.113.9", "owner@example.com"),
			right("198.51.100.7", "second@example.com", s/2),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, storetest.Backends(t)[0], func(o *dashboard.Options) { o.Config.TrustedProxies = tt.proxies })
			dashboard.SetThrottlesForTest(h.D, tt.perEmail, tt.perIP)
			h.account(t, "owner@example.com")
			h.account(t, "second@example.com")
			for i, a := range tt.attempts {
				br := h.browser(t)
				br.forwardedFor = a.from
				h.Clock.Slept()
				r := br.login(a.email, a.password)
				what := fmt.Sprintf("attempt %d (%s from %q)", i+1, a.email, a.from)
				wantStatus(t, what, r, a.wantStatus)
				if diff := cmp.Diff(a.wantSlept, h.Clock.Slept()); diff != "" {
					t.Errorf("%s: held (-want +got):\n%s", what, diff)
				}
			}
		})
	}
}

// TestLoginHoldBounded checks that a sign-in is refused, not held, when
// its turn is too far off or too many are held already.
func TestLoginHoldBounded(t *testing.T) {
	entered, release := make(chan time.Duration), make(chan struct{})
	h := newHarness(t, storetest.Backends(t)[0], func(o *dashboard.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			entered <- d
			<-release
			return nil
		}
	})
	dashboard.SetThrottlesForTest(h.D, 1, 100)
	dashboard.SetMaxHeldForTest(h.D, 1)
	h.account(t, "owner@example.com")
	wantStatus(t, "first", h.browser(t).login("owner@example.com", "wrong password"), http.StatusUnauthorized)

	held := make(chan response)
	br := h.browser(t)
	go func() { held <- br.login("owner@example.com", testPassword) }()
	if d := <-entered; d != time.Second/2 {
		t.Errorf("held %v, want 0.5s", d)
	}
	r := h.browser(t).login("owner@example.com", testPassword)
	wantStatus(t, "while another is held", r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") != "1" || !strings.Contains(r.Body, "try again in 1 second") {
		t.Errorf("Retry-After %q, body:\n%s", r.Header.Get("Retry-After"), r.Body)
	}
	close(release)
	wantRedirect(t, "the held one", <-held, "/dashboard")
}

// TestLoginHoldClientGone checks that a held sign-in whose client left is
// not checked, nor signed in.
func TestLoginHoldClientGone(t *testing.T) {
	h := newHarness(t, storetest.Backends(t)[0], func(o *dashboard.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error { return context.Canceled }
	})
	dashboard.SetThrottlesForTest(h.D, 1, 100)
	h.account(t, "owner@example.com")
	wantStatus(t, "first", h.browser(t).login("owner@example.com", "wrong password"), http.StatusUnauthorized)
	br := h.browser(t)
	if r := br.login("owner@example.com", testPassword); r.StatusCode == http.StatusSeeOther || br.cookie("switchyard_session") != "" {
		t.Errorf("signed in although the client left while held: %d", r.StatusCode)
	}
}
