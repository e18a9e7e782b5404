// Package dashboard serves the account owners' web interface: sign-in,
// API keys, usage and cost, limits and billing alerts, as server-rendered
// pages under /dashboard.
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/backoff"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard"

// KeyRevoker revokes an API key so that the serving process refuses it
// at once (implemented by *app.App; *store.Store revokes without telling
// a cache).
type KeyRevoker interface {
	RevokeKey(ctx context.Context, id string) (store.Key, error)
}

// AccountInvalidator drops what the serving process caches of an
// account, so that a change made here applies from its next request
// (implemented by *app.App).
type AccountInvalidator interface {
	InvalidateAccount(id string)
}

// RateReader reads how much of its rate limits a key or account uses
// now, without taking any (implemented by *limits.Rates).
type RateReader interface {
	Current(ctx context.Context, s limits.Subject) (limits.Use, error)
}

// DeploymentHealth reports the passive health of deployments by their
// keys, in the order asked (implemented by *health.Tracker).
type DeploymentHealth interface {
	Snapshot(keys []string) []health.State
}

// Options configure New.
type Options struct {
	// Store holds accounts, keys, sessions, usage and alerts. Required.
	Store *store.Store
	// Revoker revokes keys. Default: Store, which leaves the serving
	// process to learn of it from the change feed.
	Revoker KeyRevoker
	// Config is the dashboard section of the configuration; a zero
	// SessionTTL means 12h.
	Config config.Dashboard
	// Limits are the configured defaults, shown where a key or account
	// has no rate limit of its own.
	Limits config.Limits
	// Invalidator is told of every change to an account's limits, models
	// or status, and to its keys' limits. Default: none, which leaves the
	// serving process to learn of it from the change feed.
	Invalidator AccountInvalidator
	// Rates reads the current use of rate limits for the limits page;
	// nil leaves it out.
	Rates RateReader
	// Routes returns the gateway's routing table now, for the operator's
	// page of providers and models, so that a reload of the configuration
	// shows at once; nil (or a nil table) shows none.
	Routes func() *route.Table
	// Health reports the passive health of deployments for that page; nil
	// shows that health is not tracked.
	Health DeploymentHealth
	// Providers are the configured providers, whose base URLs that page
	// shows (never their keys).
	Providers []config.Provider
	// Metering reports whether usage is recorded; without it budgets and
	// billing alerts are not enforced, and the pages say so.
	Metering bool
	// Log receives errors (default slog.Default()).
	Log *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sleep waits d, or less when ctx ends (its error then); it holds
	// throttled sign-ins. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Dashboard is the web interface's handler.
type Dashboard struct {
	store     *store.Store
	revoker   KeyRevoker
	cfg       config.Dashboard
	limits    config.Limits
	metering  bool
	rates     RateReader
	invalid   AccountInvalidator
	routing   func() *route.Table
	health    DeploymentHealth
	providers []config.Provider
	log       *slog.Logger
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error

	pages   map[string]*template.Template
	static  map[string]staticFile
	handler http.Handler

	byEmail *throttle      // failed sign-ins per email
	byAddr  *throttle      // failed sign-ins per client address
	proxies []netip.Prefix // trusted proxies, see clientAddr
	// held counts the sign-ins being held by the throttle, at most
	// maxHeld: beyond, they are refused rather than held.
	held chan struct{}
	// dummyHash is checked against when an account has no password, so
	// that every failed sign-in costs the same time.
	dummyHash  func() string
	argonSlots chan struct{} // see argon2
}

// New parses the templates (any error in them fails New) and builds the
// routes.
func New(opt Options) (*Dashboard, error) {
	if opt.Store == nil {
		return nil, errors.New("dashboard: a store is required")
	}
	d := &Dashboard{
		store:     opt.Store,
		revoker:   opt.Revoker,
		cfg:       opt.Config,
		limits:    opt.Limits,
		metering:  opt.Metering,
		rates:     opt.Rates,
		invalid:   opt.Invalidator,
		routing:   opt.Routes,
		health:    opt.Health,
		providers: opt.Providers,
		log:       opt.Log,
		now:       opt.Now,
		sleep:     opt.Sleep,
		byEmail:   newThrottle(5, 15*time.Minute, 100_000, true),
		byAddr:    newThrottle(20, 15*time.Minute, 100_000, false),

		held:       make(chan struct{}, maxHeld),
		argonSlots: make(chan struct{}, maxArgon2),
	}
	if d.revoker == nil {
		d.revoker = opt.Store
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.sleep == nil {
		d.sleep = backoff.Sleep
	}
	if d.cfg.SessionTTL <= 0 {
		d.cfg.SessionTTL = 12 * time.Hour
	}
	d.dummyHash = sync.OnceValue(func() string {
		h, _ := password.Hash("switchyard: no such account")
		return h
	})
	var err error
	if d.proxies, err = parsePrefixes(opt.Config.TrustedProxies); err != nil {
		return nil, fmt.Errorf("dashboard.trusted_proxies: %w", err)
	}
	if d.static, err = loadStatic(); err != nil {
		return nil, err
	}
	if d.pages, err = d.parseTemplates(templateFS); err != nil {
		return nil, err
	}
	d.handler = d.routes()
	return d, nil
}

// routes registers every page. Handlers that need a signed-in owner go
// through auth, which also checks the CSRF token of every POST.
func (d *Dashboard) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.Handler) {
		mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			server.RecordFrom(r.Context()).Route = "dashboard " + pattern
			if !isText(r.URL.Path) {
				// No page or ID has such a path; the store could not
				// even look it up.
				d.notFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		}))
	}
	handle("GET "+Prefix+"/static/{file}", http.HandlerFunc(d.serveStatic))
	handle("GET "+Prefix+"/login", http.HandlerFunc(d.loginForm))
	handle("POST "+Prefix+"/login", http.HandlerFunc(d.login))
	handle("GET "+Prefix+"/signup", http.HandlerFunc(d.signupForm))
	handle("POST "+Prefix+"/signup", http.HandlerFunc(d.signup))
	handle("POST "+Prefix+"/logout", d.auth(d.logout))
	handle("GET "+Prefix+"/password", d.auth(d.passwordForm))
	handle("POST "+Prefix+"/password", d.auth(d.changePassword))

	handle("GET "+Prefix, d.auth(d.overview))
	handle("GET "+Prefix+"/{$}", http.RedirectHandler(Prefix, http.StatusMovedPermanently))
	handle("GET "+Prefix+"/keys", d.auth(d.keys))
	handle("GET "+Prefix+"/keys/new", d.auth(d.keyForm))
	handle("POST "+Prefix+"/keys", d.auth(d.createKey))
	handle("GET "+Prefix+"/keys/{id}/revoke", d.auth(d.revokeForm))
	handle("POST "+Prefix+"/keys/{id}/revoke", d.auth(d.revokeKey))
	handle("GET "+Prefix+"/keys/{id}/limits", d.auth(d.keyLimitsPage))
	handle("POST "+Prefix+"/keys/{id}/limits", d.auth(d.setKeyLimits))
	handle("GET "+Prefix+"/usage", d.auth(d.usage))
	handle("GET "+Prefix+"/usage.csv", d.auth(d.usageCSV))
	handle("GET "+Prefix+"/requests", d.auth(d.requests))
	handle("GET "+Prefix+"/requests.csv", d.auth(d.requestsCSV))
	handle("GET "+Prefix+"/limits", d.auth(d.limitsPage))
	handle("GET "+Prefix+"/alerts", d.auth(d.alerts))
	handle("POST "+Prefix+"/alerts", d.auth(d.addAlert))
	handle("POST "+Prefix+"/alerts/{id}/remove", d.auth(d.removeAlert))
	handle("GET "+Prefix+"/admin", http.RedirectHandler(Prefix+"/admin/accounts", http.StatusSeeOther))
	handle("GET "+Prefix+"/admin/accounts", d.operator(d.adminAccounts))
	handle("POST "+Prefix+"/admin/accounts", d.operator(d.createAccount))
	handle("GET "+Prefix+"/admin/accounts/{id}", d.operator(d.adminAccount))
	handle("POST "+Prefix+"/admin/accounts/{id}", d.operator(d.updateAccount))
	handle("POST "+Prefix+"/admin/accounts/{id}/disable", d.operator(d.disableAccount))
	handle("POST "+Prefix+"/admin/accounts/{id}/enable", d.operator(d.enableAccount))
	handle("POST "+Prefix+"/admin/accounts/{id}/password", d.operator(d.resetPassword))
	handle("GET "+Prefix+"/admin/accounts/{id}/keys/{key}/revoke", d.operator(d.adminRevokeForm))
	handle("POST "+Prefix+"/admin/accounts/{id}/keys/{key}/revoke", d.operator(d.adminRevokeKey))
	handle("GET "+Prefix+"/admin/providers", d.operator(d.adminProviders))
	handle(Prefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { d.notFound(w, r) }))

	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.renderError(w, r, http.StatusForbidden, "Request refused",
			"This form was sent from another site, so it was not accepted. Go back to the dashboard and try again.")
	}))
	return securityHeaders(cop.Handler(mux))
}

// changed tells the serving process that the account changed.
func (d *Dashboard) changed(accountID string) {
	if d.invalid != nil {
		d.invalid.InvalidateAccount(accountID)
	}
}

// ServeHTTP serves the dashboard's paths.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.handler.ServeHTTP(w, r) }

// Mount returns a handler that serves the dashboard under Prefix and
// hands every other request to other, untouched. With other nil (the
// dashboard on a listener of its own), "/" redirects to the dashboard and
// other paths are not found.
func (d *Dashboard) Mount(other http.Handler) http.Handler {
	return &mounted{d: d, other: other}
}

// mounted is Mount's handler. It is a type of its own, not a closure
// behind http.HandlerFunc, whose frame would be one more on the stack
// under an API stream's whole life (issue 18).
type mounted struct {
	d     *Dashboard
	other http.Handler
}

func (m *mounted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The other handler is called from a frame kept small: it stays on
	// the stack under an API stream's whole life (issue 18).
	p := r.URL.Path
	if m.other != nil && p != Prefix && !strings.HasPrefix(p, Prefix+"/") {
		m.other.ServeHTTP(w, r)
		return
	}
	m.d.serveMounted(w, r)
}

// serveMounted serves a request Mount keeps: the dashboard's paths and,
// with no other handler, "/" (a redirect to the dashboard) and the rest
// (not found).
func (d *Dashboard) serveMounted(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == Prefix || strings.HasPrefix(p, Prefix+"/"):
		d.ServeHTTP(w, r)
	case p == "/":
		http.Redirect(w, r, Prefix, http.StatusFound)
	default:
		securityHeaders(http.HandlerFunc(d.notFound)).ServeHTTP(w, r)
	}
}

// securityHeaders sets what every dashboard response carries: a strict
// Content-Security-Policy (no inline script or style, no framing) and no
// caching of pages that show an account's data.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
