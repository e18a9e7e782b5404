// Package cli implements the switchyard command: serve, migrate, version,
// and the admin commands that work on the same database as the server.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// Env is what a command may touch of its process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the gateway", runServe},
		{"migrate", "apply database migrations", runMigrate},
		{"backup", "copy the SQLite database to a file, while the server runs", runBackup},
		{"accounts", "create and list accounts", runAccounts},
		{"keys", "create, list and revoke API keys", runKeys},
		{"limits", "set and show rate and monthly spend limits of accounts and keys", runLimits},
		{"alerts", "add, list and remove billing alerts", runAlerts},
		{"usage", "print an account's usage and cost per day, model or key", runUsage},
		{"models", "print the model catalogue and which models are reachable", runModels},
		{"healthcheck", "ask a running server whether it is ready (a container's health check)", runHealthcheck},
		{"version", "print the version", runVersion},
	}
}

// Run runs the command named by args[0] and returns the exit status.
func Run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(env.Stderr, "switchyard %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(env.Stderr, "switchyard %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(env.Stderr, "switchyard: unknown command %q\n", args[0])
	usage(env.Stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: switchyard <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'switchyard <command> -h' for a command's flags.")
}

// usageErr wraps a message as a usage error.
func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// newFlags returns a flag set that reports to env.Stderr and knows --config.
func newFlags(env Env, name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("switchyard "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	cfgPath := fs.String("config", "", "YAML configuration `file` (default $SWITCHYARD_CONFIG)")
	return fs, cfgPath
}

// parse parses args and rejects positional arguments beyond want. Under
// checkArgs it then stops the command with errArgsChecked.
func parse(fs *flag.FlagSet, args []string, want int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > want {
		return usageErr("unexpected argument %q", fs.Arg(want))
	}
	if _, ok := fs.Output().(argsOnly); ok {
		return errArgsChecked
	}
	return nil
}

// argsOnly is the Stderr of the Env checkArgs runs a command with: parse
// finds it as the flag set's output (newFlags sets it) and stops the
// command once its command line parsed, before it loads or opens anything.
type argsOnly struct{ io.Writer }

// errArgsChecked is how parse stops a command under checkArgs.
var errArgsChecked = errors.New("command line checked; command not run")

// checkArgs parses a switchyard command line (without the program name)
// with the real commands' flag sets, running none of them: it returns nil
// when the command, subcommand and flags exist and the arguments fit, and
// the command's usage error otherwise. The deployment files' command
// lines are checked with it.
func checkArgs(args []string) error {
	if len(args) == 0 {
		return usageErr("expected a command")
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		var out strings.Builder
		env := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: argsOnly{&out},
			Getenv: func(string) string { return "" }}
		switch err := c.run(context.Background(), env, args[1:]); {
		case errors.Is(err, errArgsChecked):
			return nil
		case err == nil:
			return fmt.Errorf("switchyard %s ran without parsing its command line through parse", c.name)
		default:
			return fmt.Errorf("switchyard %s: %w", c.name, err)
		}
	}
	return usageErr("unknown command %q", args[0])
}

// loadConfig loads the file named by --config or SWITCHYARD_CONFIG.
func loadConfig(env Env, path string) (*config.Config, error) {
	if path == "" {
		path = env.Getenv("SWITCHYARD_CONFIG")
	}
	return config.Load(path, env.Getenv)
}

func newLogger(w io.Writer, c config.Log) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	// slog's JSON handler, but for the access log line, which it writes
	// without slog's per-record work: once a request.
	return slog.New(server.NewLogHandler(w, level))
}

// openStore opens the configured store, which must exist, and brings its
// schema up to date, for the admin commands that read or change existing
// data: they never leave a new empty SQLite file behind (a mistyped path,
// another working directory).
func openStore(ctx context.Context, env Env, cfgPath string) (*store.Store, error) {
	return openStoreMode(ctx, env, cfgPath, false)
}

// createStore is openStore that creates a SQLite database where there is
// none, for accounts create.
func createStore(ctx context.Context, env Env, cfgPath string) (*store.Store, error) {
	return openStoreMode(ctx, env, cfgPath, true)
}

func openStoreMode(ctx context.Context, env Env, cfgPath string, create bool) (*store.Store, error) {
	cfg, err := loadConfig(env, cfgPath)
	if err != nil {
		return nil, err
	}
	if path := cfg.Database.SQLitePath(); !create && path != "" && path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			abs, _ := filepath.Abs(path)
			return nil, fmt.Errorf("no database at %s (%s): this command works on an existing one; "+
				"set SWITCHYARD_DATABASE_URL or --config to the server's, or create one with 'switchyard accounts create' or 'switchyard serve'",
				path, abs)
		}
	}
	st, err := store.Open(ctx, cfg.Database.URL, store.Options{MaxOpenConns: 2, Logger: newLogger(env.Stderr, cfg.Log)})
	if err != nil {
		return nil, err
	}
	if _, err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return st, nil
}

// OSEnv returns the real process environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// sub is one subcommand of a group such as keys.
type sub struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

// subcommand dispatches "switchyard <group> <sub> ...". -h, --help and
// help print the group's usage (exit 0); no subcommand prints it too, as
// a usage error.
func subcommand(ctx context.Context, env Env, group string, args []string, subs []sub) error {
	if len(args) == 0 {
		groupUsage(env.Stderr, group, subs)
		return usageErr("expected a subcommand")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		groupUsage(env.Stderr, group, subs)
		return flag.ErrHelp
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, env, args[1:])
		}
	}
	groupUsage(env.Stderr, group, subs)
	return usageErr("unknown subcommand %q of %s", args[0], group)
}

// groupUsage prints a group's subcommands.
func groupUsage(w io.Writer, group string, subs []sub) {
	fmt.Fprintf(w, "Usage: switchyard %s <subcommand> [flags]\n\nSubcommands:\n", group)
	for _, s := range subs {
		fmt.Fprintf(w, "  %-7s %s\n", s.name, s.summary)
	}
	fmt.Fprintf(w, "\nRun 'switchyard %s <subcommand> -h' for its flags.\n", group)
}

// accountFlags are the flags of a command that acts on one account:
// --config and --account, the email of the account's owner.
type accountFlags struct {
	fs      *flag.FlagSet
	cfgPath *string
	email   *string
}

// newAccountFlags is newFlags with --account, for a command that acts on
// one account.
func newAccountFlags(env Env, name string) accountFlags {
	fs, cfgPath := newFlags(env, name)
	email := fs.String("account", "", "owner's email `address` (required)")
	return accountFlags{fs: fs, cfgPath: cfgPath, email: email}
}

// parse parses args as parse does and requires --account.
func (f accountFlags) parse(args []string, want int) error {
	if err := parse(f.fs, args, want); err != nil {
		return err
	}
	if *f.email == "" {
		return usageErr("--account is required")
	}
	return nil
}

// open opens the store and finds the account --account names, as
// openAccount does; the caller closes the store.
func (f accountFlags) open(ctx context.Context, env Env) (*store.Store, store.Account, error) {
	return openAccount(ctx, env, *f.cfgPath, *f.email)
}

// openAccount opens the store, as openStore does, and finds the account
// whose owner's email is email; the caller closes the store.
func openAccount(ctx context.Context, env Env, cfgPath, email string) (*store.Store, store.Account, error) {
	st, err := openStore(ctx, env, cfgPath)
	if err != nil {
		return nil, store.Account{}, err
	}
	acct, err := st.AccountByEmail(ctx, email)
	if err != nil {
		st.Close()
		return nil, store.Account{}, err
	}
	return st, acct, nil
}

// showAccount runs a command that prints something of one account: it
// takes --account and --json and no arguments, and calls show with the
// open store and the account.
func showAccount(ctx context.Context, env Env, name string, args []string,
	show func(st *store.Store, acct store.Account, asJSON bool) error) error {
	f := newAccountFlags(env, name)
	asJSON := jsonFlag(f.fs)
	if err := f.parse(args, 0); err != nil {
		return err
	}
	st, acct, err := f.open(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	return show(st, acct, *asJSON)
}

// jsonFlag adds --json to fs, for a command that prints a table or JSON.
func jsonFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("json", false, "print JSON")
}
