package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// runBackup copies the configured SQLite database to --to, online: the
// server may go on serving and writing meanwhile. It neither migrates
// nor creates the database it copies.
func runBackup(ctx context.Context, env Env, args []string) error {
	flags, cfgPath := newFlags(env, "backup")
	to := flags.String("to", "", "`file` to write the copy to; it must not exist (required)")
	if err := parse(flags, args, 0); err != nil {
		return err
	}
	if *to == "" {
		return usageErr("--to is required")
	}
	cfg, err := loadConfig(env, *cfgPath)
	if err != nil {
		return err
	}
	if cfg.Database.IsPostgres() {
		return store.ErrBackupPostgres
	}
	path := cfg.Database.SQLitePath()
	if path == "" || path == ":memory:" {
		return fmt.Errorf("database.url %q is not a SQLite file", cfg.Database.URL)
	}
	if _, err := os.Stat(path); err != nil {
		abs, _ := filepath.Abs(path)
		return fmt.Errorf("no database at %s (%s): %w", path, abs, err)
	}
	st, err := store.Open(ctx, cfg.Database.URL, store.Options{MaxOpenConns: 1, Logger: newLogger(env.Stderr, cfg.Log)})
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.Backup(ctx, *to)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--to %s: the file exists; give a new file (a backup never overwrites one)", *to)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "backed up %s to %s\n", path, *to)
	return nil
}
