package dashboard

import (
	"math"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// chart is an SVG bar chart drawn on the server, without a chart
// library: the geometry is computed here and the "chart" template draws
// it. Pages show the same figures in a table beside it, for screen
// readers and for exact values.
type chart struct {
	ID     string // unique on the page; names the title and description
	Title  string
	Desc   string
	Width  float64 // of the viewBox
	Height float64
	// Grid lines run from GridLeft to GridRight; x-axis labels sit on
	// LabelY.
	GridLeft, GridRight, LabelY float64

	Bars   []bar
	Ticks  []tick  // grid lines of a vertical chart
	Labels []label // x-axis labels of a vertical chart
}

// bar is one bar. In a horizontal chart Text is the category, drawn
// above the bar, and Value is drawn after it.
type bar struct {
	X, Y, W, H float64
	Title      string // tooltip: category and value
	Text       string
	TextY      float64
	Value      string
	ValueX     float64
}

type tick struct {
	Y     float64
	Label string
}

type label struct {
	X    float64
	Text string
}

// Geometry of the vertical chart, in viewBox units.
const (
	chartWidth  = 600
	chartHeight = 220
	plotLeft    = 40  // the least room for the y-axis labels
	charWidth   = 7.5 // of a tick label's character at 13px, in viewBox units
	plotTop     = 10
	plotBottom  = 190 // x-axis labels go below
	plotRight   = chartWidth - 8
)

// dayChart draws cost per day as vertical bars, one per row.
func dayChart(id, title string, rows []store.UsageRow) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: chartHeight,
		GridLeft: plotLeft, GridRight: plotRight, LabelY: chartHeight - 10,
		Desc: "Bar chart of cost in US dollars per day (UTC). The table beside it lists the same figures."}
	top := niceCeil(maxCost(rows))
	widest := 0
	for _, f := range []float64{0, 0.5, 1} {
		t := tick{Y: round1(plotBottom - f*(plotBottom-plotTop)), Label: "$" + strconv.FormatFloat(f*top, 'f', -1, 64)}
		c.Ticks = append(c.Ticks, t)
		widest = max(widest, len(t.Label))
	}
	// The grid starts where the widest label ends, so that none is cut.
	left := max(plotLeft, round1(10+charWidth*float64(widest)))
	c.GridLeft = left
	if len(rows) == 0 {
		return c
	}
	slot := (plotRight - left) / float64(len(rows))
	every := max(1, int(math.Ceil(float64(len(rows))/8))) // at most about 8 labels
	for i, r := range rows {
		h := dollars(r.Cost) / top * (plotBottom - plotTop)
		x := left + float64(i)*slot
		c.Bars = append(c.Bars, bar{X: round1(x + slot*0.15), Y: round1(plotBottom - h), W: round1(max(slot*0.7, 0.5)), H: round1(h),
			Title: r.Day + ": " + r.Cost.Dollars()})
		if i%every == 0 {
			c.Labels = append(c.Labels, label{X: round1(x + slot/2), Text: shortDay(r.Day)})
		}
	}
	return c
}

// Geometry of the horizontal chart.
const (
	rowHeight = 40
	barLeft   = 8
	barMax    = 470 // widest bar; the value is written after it
)

// categoryChart draws cost per category (a model, a key) as horizontal
// bars, each with its name above it.
func categoryChart(id, title string, names []string, costs []usd.Amount) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: float64(max(1, len(names)) * rowHeight),
		Desc: "Bar chart of cost in US dollars. The table beside it lists the same figures."}
	var top usd.Amount
	for _, v := range costs {
		top = max(top, v)
	}
	for i, name := range names {
		w := 0.0
		if top > 0 {
			w = float64(costs[i]) / float64(top) * barMax
		}
		y := float64(i * rowHeight)
		c.Bars = append(c.Bars, bar{X: barLeft, Y: y + 20, W: round1(max(w, 1)), H: 14, Title: name + ": " + costs[i].Dollars(),
			Text: name, TextY: y + 15, Value: costs[i].Dollars(), ValueX: round1(barLeft + max(w, 1) + 6)})
	}
	return c
}

// daySeries returns one row per day from since to until, with the
// totals of rows (grouped by day) where there are any and zero
// elsewhere, so that a chart shows the days without usage too.
func daySeries(rows []store.UsageRow, since, until time.Time) []store.UsageRow {
	byDay := make(map[string]store.UsageRow, len(rows))
	for _, r := range rows {
		byDay[r.Day] = r
	}
	var out []store.UsageRow
	for t := dayOf(since); !t.After(until); t = t.AddDate(0, 0, 1) {
		day := t.Format(time.DateOnly)
		r, ok := byDay[day]
		if !ok {
			r = store.UsageRow{Day: day}
		}
		out = append(out, r)
	}
	return out
}

func maxCost(rows []store.UsageRow) float64 {
	m := 0.0
	for _, r := range rows {
		m = max(m, dollars(r.Cost))
	}
	return m
}

// dollars converts an amount to a float, for drawing only: money is
// never computed with it.
func dollars(a usd.Amount) float64 { return float64(a) / usd.Scale }

// niceCeil returns the smallest of 1, 2, 2.5 and 5 times a power of ten
// that is at least v (1 for v ≤ 0): a round top for an axis.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// shortDay turns "2026-11-03" into "Nov 3".
func shortDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.Format("Jan 2")
}
