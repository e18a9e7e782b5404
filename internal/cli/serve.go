package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// Dev account created by serve --dev.
const (
	devEmail   = "dev@switchyard.local"
	devKeyName = "dev key (serve --dev)"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "serve")
	dev := fs.Bool("dev", false, "development mode: create a dev account and key, enable the mock provider")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *cfgPath)
	if err != nil {
		return err
	}
	cfg.Dev = *dev
	log := newLogger(env.Stderr, cfg.Log)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if cfg.Dev {
		if err := ensureDevKey(ctx, env, a.Store()); err != nil {
			return err
		}
	}
	addr, err := a.Listen()
	if err != nil {
		return err
	}
	log.Info("switchyard listening", "addr", addr.String(), "database", a.Store().Dialect(), "version", Version())
	return a.Run(ctx)
}

// ensureDevKey creates the dev account and a dev key once; the key is
// printed when it is created and never again.
func ensureDevKey(ctx context.Context, env Env, st *store.Store) error {
	acct, err := st.AccountByEmail(ctx, devEmail)
	if errors.Is(err, store.ErrNotFound) {
		acct, err = st.CreateAccount(ctx, store.NewAccount{Email: devEmail})
	}
	if err != nil {
		return fmt.Errorf("dev account: %w", err)
	}
	keys, err := st.ListKeys(ctx, acct.ID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Name == devKeyName && k.Status == store.KeyActive {
			fmt.Fprintf(env.Stdout, "Dev key %s (%s) was created earlier and is shown only once.\n"+
				"For a new one: switchyard keys create --account %s --name NAME\n", k.ID, k.Hint, devEmail)
			return nil
		}
	}
	full := apikey.Generate()
	hash, _ := apikey.Parse(full)
	if _, err := st.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: devKeyName, Hash: hash.String(), Hint: apikey.Hint(full)}); err != nil {
		return fmt.Errorf("dev key: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Dev account %s; dev API key (shown once, keep it):\n%s\n", devEmail, full)
	return nil
}
