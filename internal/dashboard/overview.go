package dashboard

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// topN is how many models and keys the overview lists.
const topN = 5

// overviewPage is the data of the overview: this calendar month (UTC)
// so far.
type overviewPage struct {
	Month    string // "November 2026"
	Spend    usd.Amount
	Budget   usd.Amount // 0: none
	Percent  int64      // of the budget spent, rounded down
	Requests int64
	Tokens   int64
	Days     []store.UsageRow // every day of the month so far
	Chart    chart
	Models   []store.UsageRow // the most expensive first
	Keys     []store.UsageRow
	Metering bool
	Health   healthSection // of the last 24 hours
}

func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, s *session) {
	now := d.now().UTC()
	q := store.UsageQuery{AccountID: s.AccountID, Since: firstOfMonth(now), Until: dayOf(now)}
	var groups [3][]store.UsageRow
	for i, by := range []string{"day", "model", "key"} {
		q.By = by
		rows, err := d.store.UsageSummary(r.Context(), q)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		groups[i] = rows
	}
	p := overviewPage{Month: now.Format("January 2006"), Budget: s.Account.Limits.MonthlyBudget, Metering: d.metering,
		Days: daySeries(groups[0], q.Since, q.Until), Models: top(groups[1]), Keys: top(groups[2])}
	for _, row := range groups[0] {
		p.Spend += row.Cost
		p.Requests += row.Requests
		p.Tokens += row.TotalTokens
	}
	p.Percent = percent(p.Spend, p.Budget)
	p.Chart = dayChart("spend-chart", "Spend per day, "+p.Month, p.Days)
	h, err := d.recentHealth(r.Context(), s.AccountID, "model")
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	p.Health = h
	d.render(w, r, http.StatusOK, "overview", d.page(r, s, "overview", "Overview", p))
}

// top returns the topN rows of highest cost (ties by name).
func top(rows []store.UsageRow) []store.UsageRow {
	slices.SortStableFunc(rows, func(a, b store.UsageRow) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(a.Model+a.KeyName, b.Model+b.KeyName))
	})
	return rows[:min(topN, len(rows))]
}

// percent returns spend as a whole percentage of budget (0 without one),
// without overflowing for any amounts.
func percent(spend, budget usd.Amount) int64 {
	if budget <= 0 || spend <= 0 {
		return 0
	}
	return int64(float64(spend) / float64(budget) * 100)
}
