package cli

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func runAlerts(ctx context.Context, env Env, args []string) error {
	return subcommand(ctx, env, "alerts", args, []sub{
		{"add", "add a monthly spend alert by webhook or email", alertsAdd},
		{"list", "list an account's alerts", alertsList},
		{"remove", "remove an alert by its ID", alertsRemove},
	})
}

func alertsAdd(ctx context.Context, env Env, args []string) error {
	f := newAccountFlags(env, "alerts add")
	threshold := f.fs.String("threshold-usd", "", "alert when the month's spend reaches this many `USD`, e.g. 50 (required)")
	webhook := f.fs.String("webhook", "", "http(s) `URL` to POST the alert to")
	to := f.fs.String("email", "", "email `address` to send the alert to (default the account's own, when no --webhook)")
	if err := f.parse(args, 0); err != nil {
		return err
	}
	r, err := alertRule(*threshold, *webhook, *to)
	if err != nil {
		return err
	}
	st, acct, err := f.open(ctx, env)
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
	if r.WebhookURL != "" {
		warnWebhook(ctx, env, *f.cfgPath, r.WebhookURL)
	}
	return nil
}

// webhookCheckTimeout bounds the name lookup of warnWebhook.
const webhookCheckTimeout = 5 * time.Second

// warnWebhook tells the operator, on stderr, when the alert sender would
// refuse the webhook's address under the configured alerts settings.
func warnWebhook(ctx context.Context, env Env, cfgPath, webhook string) {
	cfg, err := loadConfig(env, cfgPath)
	if err != nil {
		return // the store was opened with it: cannot happen
	}
	opts := alerts.WebhookOptions{AllowPrivate: cfg.Alerts.WebhookAllowPrivate}
	for _, n := range cfg.Alerts.WebhookAllowedNetworks {
		if p, err := netip.ParsePrefix(n); err == nil { // validated by Load
			opts.AllowedNetworks = append(opts.AllowedNetworks, p)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, webhookCheckTimeout)
	defer cancel()
	err = alerts.CheckWebhookURL(ctx, webhook, opts)
	switch {
	case errors.Is(err, alerts.ErrAddressRefused):
		fmt.Fprintf(env.Stderr, "warning: the alert sender will refuse this webhook: %v. "+
			"To allow it, set alerts.webhook_allow_private: true or add its network to alerts.webhook_allowed_networks in the config of the server (docs/configuration.md).\n", err)
	case err != nil:
		fmt.Fprintf(env.Stderr, "warning: the webhook's host cannot be checked now: %v; deliveries will fail while it does not resolve.\n", err)
	}
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
	return showAccount(ctx, env, "alerts list", args, func(st *store.Store, acct store.Account, asJSON bool) error {
		rules, err := st.AlertRules(ctx, acct.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(env.Stdout, jsonList(rules, alertJSON))
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTHRESHOLD USD\tCHANNELS\tCREATED")
		for _, r := range rules {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Threshold, channelsText(r), fmtTime(r.CreatedAt))
		}
		return tw.Flush()
	})
}

// alertJSON is r as JSON, never with its webhook secret or the
// credentials in its URL.
func alertJSON(r alerts.Rule) map[string]any {
	return map[string]any{
		"id": r.ID, "threshold_usd": r.Threshold.String(), "webhook_url": maskUserinfo(r.WebhookURL),
		"email": r.Email, "created_at": timeOrNil(r.CreatedAt),
	}
}

func alertsRemove(ctx context.Context, env Env, args []string) error {
	f := newAccountFlags(env, "alerts remove")
	if err := f.parse(args, 1); err != nil {
		return err
	}
	if f.fs.NArg() != 1 {
		return usageErr("expected the alert ID: switchyard alerts remove --account EMAIL ID")
	}
	id := f.fs.Arg(0)
	st, acct, err := f.open(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RemoveAlertRule(ctx, acct.ID, id); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Removed alert %s of %s; alerts it already sent stay in the history.\n", id, acct.Email)
	return nil
}

func channelsText(r alerts.Rule) string {
	var cs []string
	if r.WebhookURL != "" {
		cs = append(cs, "webhook "+maskUserinfo(r.WebhookURL))
	}
	if r.Email != "" {
		cs = append(cs, "email "+r.Email)
	}
	return strings.Join(cs, " and ")
}

// maskUserinfo returns a webhook URL with its user information, which is
// a credential (https://user:password@host/…), replaced by "redacted"
// (issue 13).
func maskUserinfo(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = url.User("redacted")
	return u.String()
}
