package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// maxChartDays bounds the days a chart fills in with zeros; a longer
// range plots only the days with usage.
const maxChartDays = 400

// usagePage is the data of the usage page.
type usagePage struct {
	Since, Until, By string // as typed, for the form
	Error            string
	Rows             []store.UsageRow
	Total            store.UsageRow
	Chart            chart
	CSV              string // the export's URL for this query
}

// usageQuery reads since, until and by as `switchyard usage` reads its
// flags: UTC days, by default from the first of this month to today,
// grouped by day. A query it cannot read comes with a problem to show.
func usageQuery(today time.Time, v url.Values) (q store.UsageQuery, problem string) {
	q = store.UsageQuery{Since: firstOfMonth(today), Until: dayOf(today), By: v.Get("by")}
	if q.By == "" {
		q.By = "day"
	}
	if q.By != "day" && q.By != "model" && q.By != "key" {
		return q, "Group by day, model or key."
	}
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		s := v.Get(f.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return q, fmt.Sprintf("“%s” is not a date such as 2026-05-01.", s)
		}
		*f.t = t
	}
	if q.Since.After(q.Until) {
		return q, fmt.Sprintf("The first day, %s, is after the last, %s.", q.Since.Format(time.DateOnly), q.Until.Format(time.DateOnly))
	}
	return q, ""
}

func (d *Dashboard) usage(w http.ResponseWriter, r *http.Request, s *session) {
	v := r.URL.Query()
	q, problem := usageQuery(d.now(), v)
	p := usagePage{Since: q.Since.Format(time.DateOnly), Until: q.Until.Format(time.DateOnly), By: q.By}
	if problem != "" {
		p.Since, p.Until, p.By, p.Error = v.Get("since"), v.Get("until"), v.Get("by"), problem
		d.render(w, r, http.StatusBadRequest, "usage", d.page(r, s, "usage", "Usage and cost", p))
		return
	}
	q.AccountID = s.AccountID
	var err error
	p.Rows, err = d.store.UsageSummary(r.Context(), q)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	for _, row := range p.Rows {
		p.Total.Requests += row.Requests
		p.Total.Errors += row.Errors
		p.Total.PromptTokens += row.PromptTokens
		p.Total.CompletionTokens += row.CompletionTokens
		p.Total.TotalTokens += row.TotalTokens
		p.Total.Cost += row.Cost
	}
	p.Chart = usageChart(q, p.Rows)
	p.CSV = Prefix + "/usage.csv?" + url.Values{"since": {p.Since}, "until": {p.Until}, "by": {p.By}}.Encode()
	d.render(w, r, http.StatusOK, "usage", d.page(r, s, "usage", "Usage and cost", p))
}

// usageChart draws the rows: per day as columns, per model or key as
// bars.
func usageChart(q store.UsageQuery, rows []store.UsageRow) chart {
	title := "Cost per day, " + q.Since.Format(time.DateOnly) + " to " + q.Until.Format(time.DateOnly)
	if q.By == "day" {
		if q.Until.Sub(q.Since) < maxChartDays*24*time.Hour {
			rows = daySeries(rows, q.Since, q.Until)
		}
		return dayChart("usage-chart", title, rows)
	}
	names, costs := make([]string, len(rows)), make([]usd.Amount, len(rows))
	for i, row := range rows {
		names[i], costs[i] = groupName(q.By, row), row.Cost
	}
	return categoryChart("usage-chart", "Cost per "+q.By+", "+q.Since.Format(time.DateOnly)+" to "+q.Until.Format(time.DateOnly),
		names, costs)
}

// groupName is how a row's group is shown.
func groupName(by string, r store.UsageRow) string {
	switch by {
	case "model":
		return r.Model
	case "key":
		if r.KeyName == "" {
			return r.KeyID
		}
		return r.KeyName + " (" + r.KeyID + ")"
	}
	return r.Day
}

// usageCSV exports the usage page's rows with store.WriteUsageCSV, the
// writer of `switchyard usage --csv`.
func (d *Dashboard) usageCSV(w http.ResponseWriter, r *http.Request, s *session) {
	q, problem := usageQuery(d.now(), r.URL.Query())
	if problem != "" {
		d.renderError(w, r, http.StatusBadRequest, "Bad request", problem)
		return
	}
	q.AccountID = s.AccountID
	rows, err := d.store.UsageSummary(r.Context(), q)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="switchyard-usage-%s-to-%s-by-%s.csv"`,
		q.Since.Format(time.DateOnly), q.Until.Format(time.DateOnly), q.By))
	// Once writing starts the status is sent: a failure can only be logged.
	if err := store.WriteUsageCSV(w, q.By, rows); err != nil {
		d.log.Warn("export usage", "route", r.Pattern, "err", err)
	}
}
