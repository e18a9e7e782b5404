package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/dashboard"
	"github.com/switchyard-gw/switchyard/internal/password"
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
	cfg.Dev, cfg.Version = *dev, Version()
	log := newLogger(env.Stderr, cfg.Log)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	addr, err := a.Listen()
	if err != nil {
		return err
	}
	if cfg.Dev {
		if err := ensureDev(ctx, env, a.Store(), dashboardURL(cfg, addr, a.DashboardAddr())); err != nil {
			return err
		}
	}
	log.Info("switchyard listening", "addr", addr.String(), "database", a.Store().Dialect(), "version", Version())
	stopReload := reloadOnHangup(ctx, log, a, func() (*config.Config, error) {
		c, err := loadConfig(env, *cfgPath)
		if err == nil {
			c.Dev, c.Version = *dev, Version()
		}
		return c, err
	})
	defer stopReload()
	return a.Run(ctx)
}

// reloadOnHangup reloads the configuration on each SIGHUP until ctx ends
// or the returned stop is called, which waits for a reload under way.
// A file that fails to load or check is logged with the key at fault,
// and the running configuration stays.
func reloadOnHangup(ctx context.Context, log *slog.Logger, a *app.App, load func() (*config.Config, error)) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			log.Info("SIGHUP: reloading the configuration")
			cfg, err := load()
			if err == nil {
				err = a.Reload(cfg)
			}
			if err != nil {
				log.Error("config reload refused; the running configuration stays", "err", err)
			}
		}
	})
	return func() {
		signal.Stop(hup)
		cancel()
		wg.Wait()
	}
}

// ensureDev creates the dev account (an operator, so that the whole
// dashboard can be tried), its password and a dev key once; each secret
// is printed when it is made and never again. The key is printed last,
// alone on its line.
func ensureDev(ctx context.Context, env Env, st *store.Store, dashboard string) error {
	acct, err := st.AccountByEmail(ctx, devEmail)
	if errors.Is(err, store.ErrNotFound) {
		acct, err = st.CreateAccount(ctx, store.NewAccount{Email: devEmail, IsAdmin: true})
	}
	if err != nil {
		return fmt.Errorf("dev account: %w", err)
	}
	if err := ensureDevPassword(ctx, env, st, acct, dashboard); err != nil {
		return err
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

// ensureDevPassword gives the dev account a generated password when it
// has none, and prints it with where to sign in.
func ensureDevPassword(ctx context.Context, env Env, st *store.Store, acct store.Account, dashboard string) error {
	h, err := st.PasswordHash(ctx, acct.Email)
	if err != nil {
		return fmt.Errorf("dev account: %w", err)
	}
	if dashboard == "" {
		return nil
	}
	if h != "" {
		fmt.Fprintf(env.Stdout, "Dashboard: %s (sign in as %s; the password was shown when it was made.\n"+
			"For a new one: echo NEW-PASSWORD | switchyard accounts update --email %s --password-stdin)\n", dashboard, devEmail, devEmail)
		return nil
	}
	pw := rand.Text()
	if h, err = password.Hash(pw); err == nil {
		err = st.SetPassword(ctx, acct.ID, h)
	}
	if err != nil {
		return fmt.Errorf("dev account password: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Dashboard: %s\nSign in as %s with the password (shown once, keep it): %s\n", dashboard, devEmail, pw)
	return nil
}

// dashboardURL returns the dashboard's address for people to open: on
// its own listener or the API's; "" when it is off.
func dashboardURL(cfg *config.Config, api, own net.Addr) string {
	if !cfg.Dashboard.Enabled {
		return ""
	}
	if own != nil {
		api = own
	}
	host := api.String()
	if ta, ok := api.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	scheme := "http://"
	if cfg.TLS.Enabled() {
		scheme = "https://"
	}
	return scheme + host + dashboard.Prefix
}
