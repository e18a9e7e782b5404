package dashboard

import (
	"math"
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
	Legend []legendEntry
}

// legendEntry names the bars of a class ("" for the plain ones) when a
// chart has more than one kind.
type legendEntry struct{ Class, Text string }

// bar is one bar. In a horizontal chart Text is the category, drawn
// above the bar, and Value is drawn after it.
type bar struct {
	X, Y, W, H float64
	Title      string // tooltip: category and value
	Text       string
	TextY      float64
	Value      string
	ValueX     float64
	Class      string // "" for the plain colour
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
	plotLeft    = 40 // the least room for the y-axis labels
	plotTop     = 10
	plotBottom  = 190 // x-axis labels go below
	plotRight   = chartWidth - 8
)

// dayChart draws cost per day as vertical bars, one per row.
func dayChart(id, title string, rows []store.UsageRow) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: chartHeight,
		GridRight: plotRight, LabelY: chartHeight - 10,
		Desc: "Bar chart of cost in US dollars per day (UTC). The table beside it lists the same figures."}
	var peak usd.Amount
	for _, r := range rows {
		peak = max(peak, r.Cost)
	}
	ax := niceAxis(int64(peak), int64(usd.USD), usdDecimals, "$")
	c.setAxis(ax)
	if len(rows) == 0 {
		return c
	}
	slot := (plotRight - c.GridLeft) / float64(len(rows))
	every := max(1, int(math.Ceil(float64(len(rows))/8))) // at most about 8 labels
	for i, r := range rows {
		h := float64(r.Cost) / ax.Top * (plotBottom - plotTop)
		x := c.GridLeft + float64(i)*slot
		c.Bars = append(c.Bars, bar{X: round1(x + slot*0.15), Y: round1(plotBottom - h), W: round1(max(slot*0.7, 0.5)), H: round1(h),
			Title: r.Day + ": " + r.Cost.Dollars()})
		if i%every == 0 {
			c.Labels = append(c.Labels, label{X: round1(x + slot/2), Text: shortDay(r.Day)})
		}
	}
	return c
}

// usdDecimals is the decimals of an amount's unit, the pico-dollar.
const usdDecimals = 12

// setAxis draws ax's ticks evenly from the bottom of the plot to its top
// and starts the grid past the widest label, so that none is cut.
func (c *chart) setAxis(ax axis) {
	n := float64(len(ax.Labels) - 1)
	for i, l := range ax.Labels {
		c.Ticks = append(c.Ticks, tick{Y: round1(plotBottom - float64(i)/n*(plotBottom-plotTop)), Label: l})
	}
	c.GridLeft = gridLeft(ax.Labels)
}

// Geometry of the horizontal chart.
const (
	rowHeight = 40
	barLeft   = 8
	barMax    = 470 // widest bar when its value's text is short
)

// categoryChart draws cost per category (a model, a key) as horizontal
// bars, each with its name above it.
func categoryChart(id, title string, names []string, costs []usd.Amount) chart {
	rows := make([]barRow, len(names))
	for i, name := range names {
		rows[i] = barRow{Name: name, Value: costs[i].Dollars(),
			Bars: []rowBar{{Size: float64(costs[i]), Title: name + ": " + costs[i].Dollars()}}}
	}
	return rowChart(id, title, "Bar chart of cost in US dollars. The table beside it lists the same figures.", rows)
}

// barRow is a row of a horizontal chart: its name, drawn above its bars,
// the bars, drawn over each other from the first (the longest), and the
// value written after them.
type barRow struct {
	Name  string
	Bars  []rowBar
	Value string
}

// rowBar is a bar of a row, in any unit: the chart scales every bar to
// the longest.
type rowBar struct {
	Size         float64
	Class, Title string
}

// rowChart draws rows as horizontal bars. The longest bar leaves room
// for the widest value after it, so that no value runs off the chart.
func rowChart(id, title, desc string, rows []barRow) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: float64(max(1, len(rows)) * rowHeight), Desc: desc}
	top, widest := 0.0, 0.0
	for _, r := range rows {
		widest = max(widest, textWidth(r.Value))
		for _, b := range r.Bars {
			top = max(top, b.Size)
		}
	}
	longest := max(barMax/4, min(barMax, chartWidth-barLeft-tickGap-widest-chartPad))
	for i, r := range rows {
		y := float64(i * rowHeight)
		for j, rb := range r.Bars {
			w := 0.0
			if top > 0 {
				w = rb.Size / top * longest
			}
			b := bar{X: barLeft, Y: y + 20, W: round1(max(w, 1)), H: 14, Title: rb.Title, Class: rb.Class}
			if j == 0 {
				b.Text, b.TextY, b.Value, b.ValueX = r.Name, y+15, r.Value, round1(barLeft+max(w, 1)+tickGap)
			}
			c.Bars = append(c.Bars, b)
		}
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

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// shortDay turns "2026-11-03" into "Nov 3".
func shortDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.Format("Jan 2")
}
