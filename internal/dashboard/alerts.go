package dashboard

import (
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/store"
)

// historyLimit is how many fired alerts the alerts page lists.
const historyLimit = 50

// alertsPage is the data of the billing alerts page.
type alertsPage struct {
	Rules    []alerts.Rule
	History  []store.AlertHistory // newest first
	Form     alertForm
	Metering bool
}

func (d *Dashboard) alerts(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderAlerts(w, r, s, http.StatusOK, alertForm{})
}

// renderAlerts renders the alerts page with the add form as given.
func (d *Dashboard) renderAlerts(w http.ResponseWriter, r *http.Request, s *session, status int, f alertForm) {
	rules, err := d.store.AlertRules(r.Context(), s.AccountID)
	var history []store.AlertHistory
	if err == nil {
		history, err = d.store.AlertHistory(r.Context(), s.AccountID, historyLimit)
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.render(w, r, status, "alerts", d.page(r, s, "alerts", "Billing alerts",
		alertsPage{Rules: rules, History: history, Form: f, Metering: d.metering}))
}
