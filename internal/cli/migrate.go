package cli

import (
	"context"
	"fmt"

	"github.com/switchyard-gw/switchyard/internal/store"
)

func runMigrate(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "migrate")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *cfgPath)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.Database.URL, store.Options{MaxOpenConns: 2})
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "applied %d migration(s); %s schema is up to date\n", n, st.Dialect())
	return nil
}
