package dashboard

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// healthWindow is how far back the health charts look: the current hour
// and the 23 before it.
const healthWindow = 24 * time.Hour

// latencyRows bounds the models (or deployments) of a latency chart; the
// most requested are shown.
const latencyRows = 8

// healthSection is the data of the health charts of an account, or of
// every account: requests, errors and latency over the last 24 hours.
type healthSection struct {
	Scope            string // "your account", "all accounts"
	By               string // "model" or "deployment"
	Since, Until     string // the window, for captions
	Hours            []store.HourRow
	Requests, Errors int64
	Traffic          chart
	Latency          []latencyRow
	LatencyChart     chart
}

// latencyRow is a store.LatencyRow as shown.
type latencyRow struct {
	Name     string
	Requests int64
	P50, P95 string
}

// recentHealth reads the health of accountID ("" for every account) in
// the window that ends with the current hour, with latency per by, and
// draws its charts. It makes two queries, each a range of the index on
// (account_id, created_at).
func (d *Dashboard) recentHealth(ctx context.Context, accountID, by string) (healthSection, error) {
	until := d.now().UTC().Truncate(time.Hour).Add(time.Hour)
	q := store.HealthQuery{AccountID: accountID, Since: until.Add(-healthWindow), Until: until}
	h := healthSection{Scope: "your account", By: by,
		Since: q.Since.Format("2006-01-02 15:04"), Until: q.Until.Format("2006-01-02 15:04 UTC")}
	if accountID == "" {
		h.Scope = "all accounts"
	}
	hours, err := d.store.RequestsPerHour(ctx, q)
	if err != nil {
		return h, err
	}
	lat, err := d.store.LatencyPercentiles(ctx, q, by)
	if err != nil {
		return h, err
	}
	h.Hours = hourSeries(hours, q.Since, q.Until)
	for _, r := range hours {
		h.Requests += r.Requests
		h.Errors += r.Errors
	}
	lat = lat[:min(len(lat), latencyRows)]
	for _, r := range lat {
		h.Latency = append(h.Latency, latencyRow{Name: nameOrNone(r.Name), Requests: r.Requests,
			P50: latency(r.P50), P95: latency(r.P95)})
	}
	h.Traffic = hourChart("traffic-chart", "Requests and errors per hour (UTC), "+h.Scope, h.Hours)
	h.LatencyChart = latencyChart("latency-chart", "Latency per "+by+", p50 and p95, "+h.Scope, lat)
	return h, nil
}

// hourSeries returns one row per hour from since to until (not
// included), with the counts of rows where there are any.
func hourSeries(rows []store.HourRow, since, until time.Time) []store.HourRow {
	byHour := make(map[int64]store.HourRow, len(rows))
	for _, r := range rows {
		byHour[r.Hour.Unix()] = r
	}
	var out []store.HourRow
	for t := since; t.Before(until); t = t.Add(time.Hour) {
		r, ok := byHour[t.Unix()]
		if !ok {
			r = store.HourRow{Hour: t}
		}
		out = append(out, r)
	}
	return out
}

// hourChart draws requests per hour as columns, with the errors among
// them as darker columns over their feet.
func hourChart(id, title string, hours []store.HourRow) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: chartHeight, GridRight: plotRight, LabelY: chartHeight - 10,
		Desc:   "Bar chart of requests per hour (UTC), with the errors among them in a second colour. The table below lists the same figures.",
		Legend: []legendEntry{{"", "requests"}, {"bar-error", "errors (status 400 or more)"}}}
	var peak int64
	for _, h := range hours {
		peak = max(peak, h.Requests)
	}
	ax := niceAxis(peak, 1, 0, "")
	c.setAxis(ax)
	if len(hours) == 0 {
		return c
	}
	slot := (plotRight - c.GridLeft) / float64(len(hours))
	every := max(1, int(math.Ceil(float64(len(hours))/8)))
	height := func(n int64) float64 { return float64(n) / ax.Top * (plotBottom - plotTop) }
	for i, h := range hours {
		x := round1(c.GridLeft + float64(i)*slot + slot*0.15)
		w := round1(max(slot*0.7, 0.5))
		tip := fmt.Sprintf("%s: %s requests, %s errors", h.Hour.Format("2006-01-02 15:00 UTC"), groupDigits(h.Requests), groupDigits(h.Errors))
		rh, eh := height(h.Requests), height(h.Errors)
		c.Bars = append(c.Bars, bar{X: x, Y: round1(plotBottom - rh), W: w, H: round1(rh), Title: tip})
		if h.Errors > 0 {
			c.Bars = append(c.Bars, bar{X: x, Y: round1(plotBottom - eh), W: w, H: round1(eh), Title: tip, Class: "bar-error"})
		}
		if i%every == 0 {
			c.Labels = append(c.Labels, label{X: round1(c.GridLeft + float64(i)*slot + slot/2), Text: h.Hour.Format("15:04")})
		}
	}
	return c
}

// latencyChart draws the p95 of each row as a light bar with its p50
// over it, scaled to the largest p95.
func latencyChart(id, title string, rows []store.LatencyRow) chart {
	var br []barRow
	for _, r := range rows {
		name := nameOrNone(r.Name)
		p50, p95 := latency(r.P50), latency(r.P95)
		br = append(br, barRow{Name: name, Value: "p50 " + p50 + " · p95 " + p95, Bars: []rowBar{
			{Size: float64(r.P95), Class: "bar-p95", Title: name + ": p95 " + p95},
			{Size: float64(r.P50), Title: name + ": p50 " + p50},
		}})
	}
	c := rowChart(id, title, "Bar chart of latency: for each, the median (p50) over the 95th percentile (p95) of the answered requests. The table below lists the same figures.", br)
	c.Legend = []legendEntry{{"", "p50"}, {"bar-p95", "p95"}}
	return c
}

// nameOrNone names a group without a name.
func nameOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
