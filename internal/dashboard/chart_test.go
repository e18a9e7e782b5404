package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func TestNiceCeil(t *testing.T) {
	tests := []struct{ v, want float64 }{
		{0, 1}, {-3, 1}, {0.7, 1}, {1, 1}, {1.2, 2}, {2.2, 2.5}, {3, 5}, {7.5, 10}, {12.5, 20}, {0.0003, 0.0005}, {460, 500},
	}
	for _, tt := range tests {
		if got := niceCeil(tt.v); got != tt.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.v, got, tt.want)
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
	// The axis tops at $5, so $3 is 60% of the plot's height.
	plot := float64(plotBottom - plotTop)
	if got, want := c.Bars[0].H, round1(0.6*plot); got != want {
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
	if got, want := strings.Join(ticks, " "), "$0 $2.5 $5"; got != want {
		t.Errorf("ticks %q, want %q", got, want)
	}
	if c.Bars[2].Title != "2026-11-03: $0.50" || c.Labels[0].Text != "Nov 1" {
		t.Errorf("title %q, first label %q", c.Bars[2].Title, c.Labels[0].Text)
	}
}

// TestDayChartLeavesRoomForLabels draws tiny and large costs: the grid
// starts past the widest y-axis label, and the bars start on the grid.
func TestDayChartLeavesRoomForLabels(t *testing.T) {
	for _, cost := range []usd.Amount{32 * usd.Micro, 3 * usd.USD, 1234 * usd.USD} {
		c := dayChart("c", "Spend", []store.UsageRow{{Day: "2026-11-01", Cost: cost}, {Day: "2026-11-02"}})
		for _, tk := range c.Ticks {
			// Labels are right-aligned 6 units before the grid.
			if need := 6 + charWidth*float64(len(tk.Label)); need > c.GridLeft {
				t.Errorf("cost %s: label %q needs %v units, the grid starts at %v", cost.Dollars(), tk.Label, need, c.GridLeft)
			}
		}
		if c.Bars[0].X < c.GridLeft {
			t.Errorf("cost %s: the first bar starts at %v, before the grid at %v", cost.Dollars(), c.Bars[0].X, c.GridLeft)
		}
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
