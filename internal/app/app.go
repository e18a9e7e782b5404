// Package app wires Switchyard's components for `serve` and runs them
// until shutdown.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/api"
	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// App is one running gateway process.
type App struct {
	cfg     *config.Config
	log     *slog.Logger
	store   *store.Store
	auth    *auth.Authenticator
	watcher *events.Watcher
	server  *server.Server
}

// New opens and migrates the store and builds the components. The caller
// owns the store and closes it with Close.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger) (*App, error) {
	st, err := store.Open(ctx, cfg.Database.URL, store.Options{
		MaxOpenConns: cfg.Database.MaxOpenConns,
		Logger:       log,
		ChangePoll:   cfg.Auth.ChangePollInterval,
	})
	if err != nil {
		return nil, err
	}
	n, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if n > 0 {
		log.Info("applied migrations", "count", n, "dialect", st.Dialect())
	}
	a := &App{cfg: cfg, log: log, store: st}
	a.auth = auth.New(keyLookup{st}, auth.Options{
		LastUsedInterval:  cfg.Auth.LastUsedInterval,
		NegativeCacheSize: cfg.Auth.NegativeCacheSize,
		Logger:            log,
	})
	a.watcher = events.NewWatcher(st, log, 5*time.Second)
	a.watcher.Handle(a.onChange)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	routes, err := Routes(cfg, now)
	if err != nil {
		st.Close()
		return nil, err
	}
	h := api.New(api.Options{
		Gateway:        gateway.New(routes),
		Now:            now,
		Auth:           a.auth,
		Log:            log,
		Ready:          st.Ping,
		WildcardModels: cfg.Models.Listing == "wildcard",
	})
	a.server = server.New(cfg.Server, cfg.TLS, h, log)
	return a, nil
}

// Store returns the app's store.
func (a *App) Store() *store.Store { return a.store }

// Close closes the store.
func (a *App) Close() error { return a.store.Close() }

// RevokeKey revokes a key and drops it from this process's cache before
// returning, so the very next request with it is refused; other processes
// learn of it through the change feed.
func (a *App) RevokeKey(ctx context.Context, id string) (store.Key, error) {
	k, err := a.store.RevokeKey(ctx, id)
	if err != nil {
		return k, err
	}
	h, err := apikey.ParseHash(k.Hash)
	if err != nil {
		return k, fmt.Errorf("revoked key %s has a bad hash: %w", id, err)
	}
	a.auth.Invalidate(h)
	return k, nil
}

// onChange invalidates what another process changed.
func (a *App) onChange(c events.Change) {
	switch c.Kind {
	case events.KindKey:
		h, err := apikey.ParseHash(c.Ref)
		if err != nil {
			a.log.Warn("bad key change", "seq", c.Seq, "err", err)
			return
		}
		a.auth.Invalidate(h)
	case events.KindAccount:
		a.auth.InvalidateAccount(c.Ref)
	}
}

// Listen binds the listener and returns its address.
func (a *App) Listen() (net.Addr, error) { return a.server.Listen() }

// Run serves until ctx ends, then shuts down gracefully: the server
// drains, then the background workers stop and flush. Listen first.
func (a *App) Run(ctx context.Context) error {
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	waitWatcher, err := a.watcher.Start(bg)
	if err != nil {
		return fmt.Errorf("start change watcher: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { a.auth.RunTouches(bg, a.store) })

	err = a.server.Serve(ctx)
	stopBG()
	waitWatcher()
	wg.Wait()
	return err
}

// keyLookup adapts the store to auth.KeyLookup.
type keyLookup struct{ s *store.Store }

func (l keyLookup) LookupKey(ctx context.Context, h apikey.Hash) (auth.KeyState, error) {
	ka, err := l.s.LookupKey(ctx, h.String())
	if errors.Is(err, store.ErrNotFound) {
		return auth.KeyState{}, auth.ErrUnknown
	}
	if err != nil {
		return auth.KeyState{}, err
	}
	return auth.KeyState{
		Principal: auth.Principal{KeyID: ka.KeyID, AccountID: ka.AccountID,
			AccountModels: ka.AccountModels, KeyModels: ka.KeyModels},
		Revoked:         ka.Revoked,
		AccountDisabled: ka.AccountDisabled,
	}, nil
}
