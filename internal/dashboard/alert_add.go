package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// alertForm is the add form, as typed.
type alertForm struct {
	Threshold, Webhook, Email string
	Errors                    map[string]string // by field
}

// alertAddedPage shows a new rule and its webhook secret, the only time
// the secret is shown.
type alertAddedPage struct {
	Rule alerts.Rule
}

// addAlert adds a rule as `switchyard alerts add` does: a threshold in
// USD, parsed exactly, and a webhook, an email, or by default the
// account's own email. A rule with a webhook is answered with its
// signing secret, once; others redirect back to the list.
func (d *Dashboard) addAlert(w http.ResponseWriter, r *http.Request, s *session) {
	f := alertForm{Threshold: strings.TrimSpace(r.PostForm.Get("threshold")),
		Webhook: strings.TrimSpace(r.PostForm.Get("webhook")), Email: strings.TrimSpace(r.PostForm.Get("email"))}
	rule := f.check()
	if len(f.Errors) > 0 {
		d.renderAlerts(w, r, s, http.StatusUnprocessableEntity, f)
		return
	}
	rule.AccountID = s.AccountID
	if rule.WebhookURL == "" && rule.Email == "" {
		rule.Email = s.Account.Email
	}
	rule, err := d.store.AddAlertRule(r.Context(), rule)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if rule.WebhookSecret == "" {
		http.Redirect(w, r, Prefix+"/alerts?msg=alert-added", http.StatusSeeOther)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, http.StatusOK, "alert_added", d.page(r, s, "alerts", "Alert added", alertAddedPage{Rule: rule}))
}

// check validates the form, filling f.Errors, and returns the rule it
// describes (without its account).
func (f *alertForm) check() alerts.Rule {
	f.Errors = map[string]string{}
	amount, err := usd.Parse(f.Threshold)
	if err != nil || amount <= 0 {
		f.Errors["threshold"] = "Enter an amount of US dollars above 0, such as 50 or 12.50."
	}
	if f.Webhook != "" {
		u, err := url.Parse(f.Webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			f.Errors["webhook"] = "Enter an http or https URL, such as https://hooks.example.com/switchyard."
		}
	}
	if f.Email != "" && !validEmail(f.Email) {
		f.Errors["email"] = "Enter an email address such as ops@example.com."
	}
	return alerts.Rule{Threshold: amount, WebhookURL: f.Webhook, Email: f.Email}
}
