package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/password"
	"github.com/switchyard-gw/switchyard/internal/store"
)

func runAccounts(ctx context.Context, env Env, args []string) error {
	return subcommand(ctx, env, "accounts", args, []sub{
		{"create", "create an account (an operator with --admin)", accountsCreate},
		{"list", "list the accounts", accountsList},
		{"update", "set an account's password, models, or disable or enable it", accountsUpdate},
	})
}

func accountsCreate(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "accounts create")
	email := fs.String("email", "", "owner's email `address` (required)")
	pwStdin := fs.Bool("password-stdin", false, "read the owner's password from the first line of stdin")
	admin := fs.Bool("admin", false, "make the account an operator (admin)")
	asJSON := fs.Bool("json", false, "print the account as JSON")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if !validEmail(*email) {
		return usageErr("--email: expected an email address such as owner@example.com")
	}
	hash, err := passwordHash(env, *pwStdin)
	if err != nil {
		return err
	}
	st, err := createStore(ctx, env, *cfgPath)
	if err != nil {
		return err
	}
	defer st.Close()
	a, err := st.CreateAccount(ctx, store.NewAccount{Email: *email, PasswordHash: hash, IsAdmin: *admin})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, accountJSON(a))
	}
	fmt.Fprintf(env.Stdout, "Created account %s (%s)", a.ID, a.Email)
	if a.IsAdmin {
		fmt.Fprint(env.Stdout, ", operator")
	}
	if hash == "" {
		fmt.Fprint(env.Stdout, "; no password set, so the owner cannot sign in to the dashboard yet")
	}
	fmt.Fprintln(env.Stdout, ".")
	return nil
}

// passwordHash reads the password from stdin when fromStdin is set and
// returns its hash; "" when it is not set.
func passwordHash(env Env, fromStdin bool) (string, error) {
	if !fromStdin {
		return "", nil
	}
	pw, err := readPassword(env.Stdin)
	if err != nil {
		return "", err
	}
	hash, err := password.Hash(pw)
	if err != nil {
		return "", usageErr("password: %v", err)
	}
	return hash, nil
}

// readPassword reads one line from r, without its line ending.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read password from stdin: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func validEmail(s string) bool {
	s = strings.TrimSpace(s)
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(s, " \t\r\n<>\"") && !strings.Contains(domain, "@")
}

func accountsList(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "accounts list")
	asJSON := jsonFlag(fs)
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	st, err := openStore(ctx, env, *cfgPath)
	if err != nil {
		return err
	}
	defer st.Close()
	accts, err := st.ListAccounts(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, jsonList(accts, accountJSON))
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tROLE\tSTATUS\tCREATED")
	for _, a := range accts {
		role, status := "owner", "active"
		if a.IsAdmin {
			role = "operator"
		}
		if a.Disabled {
			status = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.ID, a.Email, role, status, fmtTime(a.CreatedAt))
	}
	return tw.Flush()
}

func accountJSON(a store.Account) map[string]any {
	return map[string]any{
		"id": a.ID, "email": a.Email, "admin": a.IsAdmin, "disabled": a.Disabled,
		"created_at": a.CreatedAt.Format(time.RFC3339), "models": listOrEmpty(a.Models),
	}
}

// jsonList returns the JSON values of the elements of l, for printJSON.
func jsonList[T any](l []T, value func(T) map[string]any) []map[string]any {
	out := make([]map[string]any, len(l))
	for i, v := range l {
		out[i] = value(v)
	}
	return out
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func accountsUpdate(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "accounts update")
	email := fs.String("email", "", "owner's email `address` (required)")
	models := fs.String("models", "", "comma-separated model `IDs` the account may use; \"\" or \"all\" permits every model")
	pwStdin := fs.Bool("password-stdin", false, "set the owner's password from the first line of stdin (signs out every session)")
	disable := fs.Bool("disable", false, "disable the account: its keys are refused and its owner cannot sign in")
	enable := fs.Bool("enable", false, "enable a disabled account again")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *email == "" {
		return usageErr("--email is required")
	}
	setModels := false
	fs.Visit(func(f *flag.Flag) { setModels = setModels || f.Name == "models" })
	switch {
	case *disable && *enable:
		return usageErr("--disable and --enable: give one of them")
	case !setModels && !*pwStdin && !*disable && !*enable:
		return usageErr("nothing to update: give --models, --password-stdin, --disable or --enable")
	}
	var allowed []string
	if setModels {
		var err error
		if allowed, err = modelList(env, *cfgPath, *models); err != nil {
			return err
		}
		if len(allowed) == 1 && allowed[0] == "all" {
			allowed = nil
		}
	}
	hash, err := passwordHash(env, *pwStdin)
	if err != nil {
		return err
	}
	st, a, err := openAccount(ctx, env, *cfgPath, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	return updateAccount(ctx, env, st, a, accountUpdate{models: setModels, allowed: allowed, hash: hash,
		disable: *disable, enable: *enable})
}

// accountUpdate is what accounts update changes.
type accountUpdate struct {
	models          bool // set the allow-list to allowed
	allowed         []string
	hash            string // a new password's hash; "" leaves it
	disable, enable bool
}

func updateAccount(ctx context.Context, env Env, st *store.Store, a store.Account, u accountUpdate) error {
	if u.models {
		if err := st.SetAccountModels(ctx, a.ID, u.allowed); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Account %s may use: %s.\n", a.Email, modelsText(u.allowed))
	}
	if u.hash != "" {
		if err := st.SetPassword(ctx, a.ID, u.hash); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Password of %s set; its dashboard sessions were signed out.\n", a.Email)
	}
	if u.disable || u.enable {
		if err := st.SetAccountDisabled(ctx, a.ID, u.disable); err != nil {
			return err
		}
		if u.disable {
			fmt.Fprintf(env.Stdout, "Account %s disabled: its keys are refused and its owner cannot sign in.\n", a.Email)
		} else {
			fmt.Fprintf(env.Stdout, "Account %s enabled.\n", a.Email)
		}
	}
	return nil
}
