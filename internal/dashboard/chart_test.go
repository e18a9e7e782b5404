package dashboard

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func TestNiceAxis(t *testing.T) {
	tests := []struct {
		peak, empty int64
		decimals    int
		unit        string
		want        []string
	}{
		{0, 1, 0, "", []string{"0", "1"}},
		{-3, 1, 0, "", []string{"0", "1"}},
		{1, 1, 0, "", []string{"0", "1"}},
		{5, 1, 0, "", []string{"0", "2", "4", "6"}},
		{10, 1, 0, "", []string{"0", "5", "10"}},
		{1234, 1, 0, "", []string{"0", "500", "1,000", "1,500"}},
		{0, int64(usd.USD), 12, "$", []string{"$0.0", "$0.5", "$1.0"}},
		{int64(3 * usd.USD), 1, 12, "$", []string{"$0", "$1", "$2", "$3"}},
		{int64(17 * usd.Cent), 1, 12, "$", []string{"$0.00", "$0.05", "$0.10", "$0.15", "$0.20"}},
		{int64(3 * usd.Micro), 1, 12, "$", []string{"$0.000000", "$0.000001", "$0.000002", "$0.000003"}},
		{1, 1, 12, "$", []string{"$0.000000000000", "$0.000000000001"}},
		{math.MaxInt64, 1, 12, "$", []string{"$0", "$5,000,000", "$10,000,000"}},
		{math.MaxInt64, 1, 0, "", []string{"0", "5,000,000,000,000,000,000", "10,000,000,000,000,000,000"}},
	}
	for _, tt := range tests {
		got := niceAxis(tt.peak, tt.empty, tt.decimals, tt.unit)
		if diff := cmp.Diff(tt.want, got.Labels); diff != "" {
			t.Errorf("niceAxis(%d, %d, %d) labels (-want +got):\n%s", tt.peak, tt.empty, tt.decimals, diff)
		}
	}
}

func TestDaySeries(t *testing.T) {
	rows := []store.UsageRow{{Day: "2026-11-02", Requests: 3, Cost: usd.Cent}, {Day: "2026-11-04", Requests: 1}}
	got := daySeries(rows, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC))
	want := []store.UsageRow{{Day: "2026-11-01"}, rows[0], {Day: "2026-11-03"}, rows[1], {Day: "2026-11-05"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("daySeries (-want +got):\n%s", diff)
	}
}

func TestDayChart(t *testing.T) {
	rows := []store.UsageRow{{Day: "2026-11-01", Cost: 3 * usd.USD}, {Day: "2026-11-02"}, {Day: "2026-11-03", Cost: usd.USD / 2}}
	c := dayChart("c", "Spend", rows)
	if len(c.Bars) != 3 {
		t.Fatalf("%d bars, want 3", len(c.Bars))
	}
	// The axis tops at $3 in steps of $1, so $3 is the plot's height.
	plot := float64(plotBottom - plotTop)
	if got, want := c.Bars[0].H, plot; got != want {
		t.Errorf("bar of $3 is %v high, want %v", got, want)
	}
	if c.Bars[1].H != 0 {
		t.Errorf("bar of $0 is %v high, want 0", c.Bars[1].H)
	}
	if got, want := c.Bars[0].Y+c.Bars[0].H, float64(plotBottom); got != want {
		t.Errorf("bar ends at %v, want the axis at %v", got, want)
	}
	var ticks []string
	for _, tk := range c.Ticks {
		ticks = append(ticks, tk.Label)
	}
	if got, want := strings.Join(ticks, " "), "$0 $1 $2 $3"; got != want {
		t.Errorf("ticks %q, want %q", got, want)
	}
	if c.Bars[2].Title != "2026-11-03: $0.50" || c.Labels[0].Text != "Nov 1" {
		t.Errorf("title %q, first label %q", c.Bars[2].Title, c.Labels[0].Text)
	}
}

func TestCategoryChart(t *testing.T) {
	c := categoryChart("c", "Cost per model", []string{"gpt-4o", "claude"}, []usd.Amount{2 * usd.USD, usd.USD})
	if got, want := c.Bars[0].W, float64(barMax); got != want {
		t.Errorf("widest bar %v, want %v", got, want)
	}
	if got, want := c.Bars[1].W, float64(barMax)/2; got != want {
		t.Errorf("half bar %v, want %v", got, want)
	}
	if c.Bars[1].Text != "claude" || c.Bars[1].Value != "$1.00" {
		t.Errorf("second bar %+v", c.Bars[1])
	}
}
