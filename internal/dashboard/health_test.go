package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
)

func TestHourSeries(t *testing.T) {
	since := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	rows := []store.HourRow{{Hour: since.Add(time.Hour), Requests: 3, Errors: 1}}
	got := hourSeries(rows, since, since.Add(3*time.Hour))
	want := []store.HourRow{{Hour: since}, rows[0], {Hour: since.Add(2 * time.Hour)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hourSeries (-want +got):\n%s", diff)
	}
}

func TestHourChart(t *testing.T) {
	since := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	hours := hourSeries([]store.HourRow{
		{Hour: since, Requests: 8, Errors: 2},
		{Hour: since.Add(5 * time.Hour), Requests: 1234},
	}, since, since.Add(24*time.Hour))
	c := hourChart("c", "Requests", hours)
	var plain, errs []bar
	for _, b := range c.Bars {
		switch b.Class {
		case "":
			plain = append(plain, b)
		case "bar-error":
			errs = append(errs, b)
		default:
			t.Errorf("bar of class %q", b.Class)
		}
	}
	if len(plain) != 24 || len(errs) != 1 {
		t.Fatalf("%d request bars and %d error bars, want 24 and 1", len(plain), len(errs))
	}
	// The axis tops at 1,500 in steps of 500: 1,234 requests are 1234/1500 of the plot.
	var ticks []string
	for _, tk := range c.Ticks {
		ticks = append(ticks, tk.Label)
	}
	if diff := cmp.Diff([]string{"0", "500", "1,000", "1,500"}, ticks); diff != "" {
		t.Errorf("ticks (-want +got):\n%s", diff)
	}
	plot := float64(plotBottom - plotTop)
	if got, want := plain[5].H, round1(1234.0/1500*plot); got != want {
		t.Errorf("bar of 1,234 requests is %v high, want %v", got, want)
	}
	if errs[0].X != plain[0].X || errs[0].Y+errs[0].H != plotBottom || errs[0].H >= plain[0].H {
		t.Errorf("error bar %+v does not stand at the foot of its hour's %+v", errs[0], plain[0])
	}
	if want := "2026-11-21 16:00 UTC: 8 requests, 2 errors"; plain[0].Title != want {
		t.Errorf("tooltip %q, want %q", plain[0].Title, want)
	}
	var labels []string
	for _, l := range c.Labels {
		labels = append(labels, l.Text)
	}
	if got, want := strings.Join(labels, " "), "16:00 19:00 22:00 01:00 04:00 07:00 10:00 13:00"; got != want {
		t.Errorf("hour labels %q, want %q", got, want)
	}
}

func TestHourChartEmpty(t *testing.T) {
	since := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	c := hourChart("c", "Requests", hourSeries(nil, since, since.Add(24*time.Hour)))
	for _, b := range c.Bars {
		if b.H != 0 {
			t.Errorf("bar %+v without requests", b)
		}
	}
	if len(c.Ticks) != 2 || c.Ticks[1].Label != "1" {
		t.Errorf("ticks %+v, want 0 and 1", c.Ticks)
	}
}

func TestLatencyChart(t *testing.T) {
	rows := []store.LatencyRow{
		{Name: "gpt-4o", Requests: 90, P50: 400 * time.Millisecond, P95: 2 * time.Second},
		{Name: "", Requests: 3, P50: 850 * time.Microsecond, P95: time.Second},
	}
	c := latencyChart("c", "Latency", rows)
	if len(c.Bars) != 4 {
		t.Fatalf("%d bars, want a p95 and a p50 per row", len(c.Bars))
	}
	p95, p50 := c.Bars[0], c.Bars[1]
	if p95.Class != "bar-p95" || p50.Class != "" || p95.Text != "gpt-4o" || p50.Text != "" {
		t.Errorf("first row's bars %+v, %+v", p95, p50)
	}
	if got, want := p50.W, round1(p95.W/5); got != want {
		t.Errorf("p50 of 400 ms is %v wide, want a fifth of the p95 of 2 s, %v", got, want)
	}
	if want := "p50 400 ms · p95 2.0 s"; p95.Value != want {
		t.Errorf("value %q, want %q", p95.Value, want)
	}
	if c.Bars[2].Text != "(none)" || c.Bars[2].Value != "p50 850 µs · p95 1.0 s" || c.Bars[3].Title != "(none): p50 850 µs" {
		t.Errorf("second row %+v, %+v", c.Bars[2], c.Bars[3])
	}
	for _, b := range c.Bars {
		if b.Value != "" && b.ValueX+textWidth(b.Value) > c.Width {
			t.Errorf("value %q runs from %v past the chart's width %v", b.Value, b.ValueX, c.Width)
		}
	}
}
