package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func runLimits(ctx context.Context, env Env, args []string) error {
	return subcommand(ctx, env, "limits", args, []sub{
		{"set", "set an account's or a key's RPM, TPM and monthly budget", limitsSet},
		{"show", "show an account's limits and its keys'", limitsShow},
	})
}

func limitsSet(ctx context.Context, env Env, args []string) error {
	f := newAccountFlags(env, "limits set")
	keyID := f.fs.String("key", "", "key `ID` to limit instead of the whole account")
	budget := f.fs.String("monthly-budget-usd", "", "spend limit per calendar month (UTC) in `USD`, e.g. 12.50; 0 removes it")
	rpm := f.fs.Int64("rpm", 0, "requests per minute; 0 clears it (the configured default applies: limits.key_rpm or limits.account_rpm, unlimited unless set)")
	tpm := f.fs.Int64("tpm", 0, "tokens per minute; 0 clears it (the configured default applies: limits.key_tpm or limits.account_tpm, unlimited unless set)")
	if err := f.parse(args, 0); err != nil {
		return err
	}
	u, err := limitsUpdate(f.fs, *rpm, *tpm, *budget)
	if err != nil {
		return err
	}
	u.KeyID = *keyID
	st, acct, err := f.open(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	u.AccountID = acct.ID
	if err := st.SetLimits(ctx, u); err != nil {
		return err
	}
	if *keyID == "" {
		acct, err = st.AccountByID(ctx, acct.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Limits of account %s: %s.\n", acct.Email, limitsText(acct.Limits))
		return nil
	}
	k, err := st.KeyByID(ctx, *keyID)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Limits of key %s %q of %s: %s.\n", k.ID, k.Name, acct.Email, limitsText(k.Limits))
	return nil
}

// limitsUpdate returns the update the set flags of fs ask for.
func limitsUpdate(fs *flag.FlagSet, rpm, tpm int64, budget string) (store.LimitsUpdate, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var u store.LimitsUpdate
	if set["rpm"] {
		if rpm < 0 {
			return u, usageErr("--rpm: %d is negative (0 clears it)", rpm)
		}
		u.RPM = &rpm
	}
	if set["tpm"] {
		if tpm < 0 {
			return u, usageErr("--tpm: %d is negative (0 clears it)", tpm)
		}
		u.TPM = &tpm
	}
	if set["monthly-budget-usd"] {
		a, err := usd.Parse(budget)
		if err != nil {
			return u, usageErr("--monthly-budget-usd: %v", err)
		}
		u.MonthlyBudget = &a
	}
	if u.RPM == nil && u.TPM == nil && u.MonthlyBudget == nil {
		return u, usageErr("nothing to set: give --monthly-budget-usd, --rpm or --tpm")
	}
	return u, nil
}

func limitsShow(ctx context.Context, env Env, args []string) error {
	return showAccount(ctx, env, "limits show", args, func(st *store.Store, acct store.Account, asJSON bool) error {
		keys, err := st.ListKeys(ctx, acct.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(env.Stdout, limitsJSON(acct, keys))
		}
		return printLimits(env.Stdout, acct, keys)
	})
}

func printLimits(w io.Writer, acct store.Account, keys []store.Key) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCOPE\tID\tNAME\tSTATUS\tRPM\tTPM\tMONTHLY BUDGET USD")
	row := func(scope, id, name, status string, l store.Limits) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", scope, id, name, status,
			countText(l.RPM), countText(l.TPM), budgetText(l.MonthlyBudget))
	}
	row("account", acct.ID, acct.Email, "-", acct.Limits)
	for _, k := range keys {
		row("key", k.ID, k.Name, k.Status, k.Limits)
	}
	return tw.Flush()
}

func limitsJSON(acct store.Account, keys []store.Key) map[string]any {
	ks := make([]any, len(keys))
	for i, k := range keys {
		m := limitsMap(k.Limits)
		m["id"], m["name"], m["status"] = k.ID, k.Name, k.Status
		ks[i] = m
	}
	a := limitsMap(acct.Limits)
	a["id"], a["email"] = acct.ID, acct.Email
	return map[string]any{"account": a, "keys": ks}
}

// limitsMap is l as JSON fields; null is unlimited.
func limitsMap(l store.Limits) map[string]any {
	m := map[string]any{"rpm": nil, "tpm": nil, "monthly_budget_usd": nil}
	if l.RPM > 0 {
		m["rpm"] = l.RPM
	}
	if l.TPM > 0 {
		m["tpm"] = l.TPM
	}
	if l.MonthlyBudget > 0 {
		m["monthly_budget_usd"] = l.MonthlyBudget.String()
	}
	return m
}

func limitsText(l store.Limits) string {
	budget := "unlimited"
	if l.MonthlyBudget > 0 {
		budget = l.MonthlyBudget.Dollars()
	}
	return fmt.Sprintf("requests per minute %s, tokens per minute %s, monthly budget %s",
		countText(l.RPM), countText(l.TPM), budget)
}

func countText(n int64) string {
	if n <= 0 {
		return "unlimited"
	}
	return strconv.FormatInt(n, 10)
}

func budgetText(a usd.Amount) string {
	if a <= 0 {
		return "unlimited"
	}
	return a.String()
}
