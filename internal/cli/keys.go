package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/store"
)

func runKeys(ctx context.Context, env Env, args []string) error {
	return subcommand(ctx, env, "keys", args, []sub{
		{"create", "create a key for an account and print it once", keysCreate},
		{"list", "list an account's keys", keysList},
		{"revoke", "revoke a key by its ID, for good", keysRevoke},
	})
}

func keysCreate(ctx context.Context, env Env, args []string) error {
	f := newAccountFlags(env, "keys create")
	name := f.fs.String("name", "", "descriptive `name` of the key, e.g. \"ci pipeline\" (required)")
	asJSON := f.fs.Bool("json", false, "print the key and its details as JSON")
	models := f.fs.String("models", "", "comma-separated model `IDs` the key may use (a trailing * matches a prefix; default all)")
	if err := f.parse(args, 0); err != nil {
		return err
	}
	allowed, err := modelList(env, *f.cfgPath, *models)
	if err != nil {
		return err
	}
	*name = strings.TrimSpace(*name)
	if err := apikey.CheckName(*name); err != nil {
		return usageErr("--name: %v", err)
	}
	st, acct, err := f.open(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	full := apikey.Generate()
	hash, _ := apikey.Parse(full)
	k, err := st.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: *name, Hash: hash.String(),
		Hint: apikey.Hint(full), Models: allowed})
	if err != nil {
		return err
	}
	if *asJSON {
		m := keyJSON(k)
		m["key"] = full
		m["account"] = acct.Email
		return printJSON(env.Stdout, m)
	}
	fmt.Fprintf(env.Stdout, "Created key %s %q for %s.\nCopy it now: it cannot be shown again.\n%s\n", k.ID, k.Name, acct.Email, full)
	return nil
}

func keysList(ctx context.Context, env Env, args []string) error {
	return showAccount(ctx, env, "keys list", args, func(st *store.Store, acct store.Account, asJSON bool) error {
		keys, err := st.ListKeys(ctx, acct.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(env.Stdout, jsonList(keys, keyJSON))
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tKEY\tSTATUS\tCREATED\tLAST USED\tREVOKED\tMODELS")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Hint, k.Status,
				fmtTime(k.CreatedAt), fmtTime(k.LastUsedAt), fmtTime(k.RevokedAt), modelsText(k.Models))
		}
		return tw.Flush()
	})
}

func keysRevoke(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "keys revoke")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("expected the key ID: switchyard keys revoke ID")
	}
	st, err := openStore(ctx, env, *cfgPath)
	if err != nil {
		return err
	}
	defer st.Close()
	k, err := st.RevokeKey(ctx, fs.Arg(0))
	if errors.Is(err, store.ErrRevoked) {
		fmt.Fprintf(env.Stdout, "Key %s was already revoked.\n", fs.Arg(0))
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Revoked key %s %q (%s). Revocation is permanent.\n", k.ID, k.Name, k.Hint)
	return nil
}

func keyJSON(k store.Key) map[string]any {
	return map[string]any{
		"id": k.ID, "name": k.Name, "hint": k.Hint, "status": k.Status,
		"created_at": timeOrNil(k.CreatedAt), "last_used_at": timeOrNil(k.LastUsedAt), "revoked_at": timeOrNil(k.RevokedAt),
		"models": listOrEmpty(k.Models),
	}
}

// modelList parses a --models value: model IDs and prefixes, separated by
// commas or spaces.
func modelsText(l []string) string {
	if len(l) == 0 {
		return "all"
	}
	return strings.Join(l, ",")
}

func listOrEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
