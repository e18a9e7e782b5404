package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func runAlerts(ctx context.Context, env Env, args []string) error {
	return subcommand(ctx, env, "alerts", args, map[string]func(context.Context, Env, []string) error{
		"add":    alertsAdd,
		"list":   alertsList,
		"remove": alertsRemove,
	})
}

func alertsAdd(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "alerts add")
	email := fs.String("account", "", "owner's email `address` (required)")
	threshold := fs.String("threshold-usd", "", "alert when the month's spend reaches this many `USD`, e.g. 50 (required)")
	webhook := fs.String("webhook", "", "http(s) `URL` to POST the alert to")
	to := fs.String("email", "", "email `address` to send the alert to (default the account's own, when no --webhook)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *email == "" {
		return usageErr("--account is required")
	}
	r, err := alertRule(*threshold, *webhook, *to)
	if err != nil {
		return err
	}
	st, acct, err := openAccount(ctx, env, *cfgPath, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	r.AccountID = acct.ID
	if r.WebhookURL == "" && r.Email == "" {
		r.Email = acct.Email
	}
	r, err = st.AddAlertRule(ctx, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Added alert %s for %s: when the spend of a calendar month (UTC) reaches %s, notify %s.\n",
		r.ID, acct.Email, r.Threshold.Dollars(), channelsText(r))
	if r.WebhookSecret != "" {
		fmt.Fprintf(env.Stdout, "Webhook signing secret (shown only once; it signs the X-Switchyard-Signature header of each delivery):\n%s\n",
			r.WebhookSecret)
	}
	return nil
}

// alertRule checks the flags of alerts add and returns the rule they
// describe (without its account).
func alertRule(threshold, webhook, email string) (alerts.Rule, error) {
	if threshold == "" {
		return alerts.Rule{}, usageErr("--threshold-usd is required")
	}
	amount, err := usd.Parse(threshold)
	if err != nil {
		return alerts.Rule{}, usageErr("--threshold-usd: %v", err)
	}
	if amount <= 0 {
		return alerts.Rule{}, usageErr("--threshold-usd: must be more than 0")
	}
	if webhook != "" {
		u, err := url.Parse(webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return alerts.Rule{}, usageErr("--webhook: %q is not an http or https URL with a host", webhook)
		}
	}
	if email != "" && !validEmail(email) {
		return alerts.Rule{}, usageErr("--email: expected an email address such as ops@example.com")
	}
	return alerts.Rule{Threshold: amount, WebhookURL: webhook, Email: strings.TrimSpace(email)}, nil
}

func alertsList(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "alerts list")
	email := fs.String("account", "", "owner's email `address` (required)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	st, acct, err := openAccount(ctx, env, *cfgPath, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	rules, err := st.AlertRules(ctx, acct.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]any, len(rules))
		for i, r := range rules {
			out[i] = map[string]any{ // never the webhook secret
				"id": r.ID, "threshold_usd": r.Threshold.String(), "webhook_url": r.WebhookURL,
				"email": r.Email, "created_at": timeOrNil(r.CreatedAt),
			}
		}
		return printJSON(env.Stdout, out)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTHRESHOLD USD\tCHANNELS\tCREATED")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Threshold, channelsText(r), fmtTime(r.CreatedAt))
	}
	return tw.Flush()
}

func alertsRemove(ctx context.Context, env Env, args []string) error {
	fs, cfgPath := newFlags(env, "alerts remove")
	email := fs.String("account", "", "owner's email `address` (required)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if *email == "" {
		return usageErr("--account is required")
	}
	if fs.NArg() != 1 {
		return usageErr("expected the alert ID: switchyard alerts remove --account EMAIL ID")
	}
	st, acct, err := openAccount(ctx, env, *cfgPath, *email)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RemoveAlertRule(ctx, acct.ID, fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Removed alert %s of %s; alerts it already sent stay in the history.\n", fs.Arg(0), acct.Email)
	return nil
}

func channelsText(r alerts.Rule) string {
	var cs []string
	if r.WebhookURL != "" {
		cs = append(cs, "webhook "+r.WebhookURL)
	}
	if r.Email != "" {
		cs = append(cs, "email "+r.Email)
	}
	return strings.Join(cs, " and ")
}
