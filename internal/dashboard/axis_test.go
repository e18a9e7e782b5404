package dashboard

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// moneyLabel is a y-axis label of dollars: digits grouped by commas and
// an optional fraction, nothing else (no exponent, no float noise).
var moneyLabel = regexp.MustCompile(`^\$[0-9]{1,3}(,[0-9]{3})*(\.[0-9]+)?$`)

// labelValue reads a label exactly, as a number of units of 10^-decimals.
func labelValue(t *testing.T, s string, decimals int) *big.Rat {
	t.Helper()
	v, ok := new(big.Rat).SetString(strings.ReplaceAll(strings.TrimPrefix(s, "$"), ",", ""))
	if !ok {
		t.Fatalf("label %q is not a decimal number", s)
	}
	return v.Mul(v, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
}

// TestDayChartTicksAreExact draws tiny, huge, zero and all-equal costs:
// every y-axis label is an exact decimal (the labels of a step of 3
// micro-dollars once read $0.0000024999999999999998), the labels rise in
// equal steps from $0 to at least the largest cost, all with the same
// decimals, and the grid starts past the widest of them.
func TestDayChartTicksAreExact(t *testing.T) {
	tests := []struct {
		name  string
		costs []usd.Amount
	}{
		{"zero", []usd.Amount{0, 0}},
		{"one pico-dollar", []usd.Amount{1, 0}},
		{"three micro-dollars", []usd.Amount{3 * usd.Micro, usd.Micro}},
		{"seven tenths of a micro-dollar", []usd.Amount{7 * usd.Micro / 10}},
		{"cents", []usd.Amount{3 * usd.Cent, 17 * usd.Cent}},
		{"all equal", []usd.Amount{42 * usd.Micro, 42 * usd.Micro, 42 * usd.Micro}},
		{"dollars", []usd.Amount{1234 * usd.USD, usd.USD}},
		{"millions", []usd.Amount{9_000_000 * usd.USD}},
		{"the most an amount holds", []usd.Amount{math.MaxInt64, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []store.UsageRow
			largest := big.NewRat(0, 1)
			for _, c := range tt.costs {
				rows = append(rows, store.UsageRow{Day: "2026-11-01", Cost: c})
				largest = maxRat(largest, new(big.Rat).SetInt64(int64(c)))
			}
			c := dayChart("c", "Spend", rows)
			if len(c.Ticks) < 2 {
				t.Fatalf("ticks %+v, want at least two", c.Ticks)
			}
			decimals := -1
			var prev, step *big.Rat
			for i, tk := range c.Ticks {
				if !moneyLabel.MatchString(tk.Label) {
					t.Errorf("label %q is not an exact amount of dollars", tk.Label)
					continue
				}
				_, frac, _ := strings.Cut(tk.Label, ".")
				if i == 0 {
					decimals = len(frac)
				} else if len(frac) != decimals {
					t.Errorf("label %q has %d decimals, the first has %d", tk.Label, len(frac), decimals)
				}
				v := labelValue(t, tk.Label, 12)
				if !v.IsInt() {
					t.Errorf("label %q is not a whole number of pico-dollars", tk.Label)
				}
				switch {
				case i == 0 && v.Sign() != 0:
					t.Errorf("the axis starts at %q, want $0", tk.Label)
				case i == 1:
					step = new(big.Rat).Sub(v, prev)
				case i > 1 && new(big.Rat).Sub(v, prev).Cmp(step) != 0:
					t.Errorf("label %q is not one step of %s above %s", tk.Label, step.FloatString(0), prev.FloatString(0))
				}
				prev = v
				if i > 0 && c.Ticks[i-1].Y <= tk.Y {
					t.Errorf("label %q is drawn at y=%v, not above the one before at %v", tk.Label, tk.Y, c.Ticks[i-1].Y)
				}
			}
			if prev != nil && prev.Cmp(largest) < 0 {
				t.Errorf("the axis tops at %s pico-dollars, below the largest cost %s", prev.FloatString(0), largest.FloatString(0))
			}
			for _, tk := range c.Ticks {
				if need := tickGap + textWidth(tk.Label); need > c.GridLeft {
					t.Errorf("label %q needs %v units left of the grid, which starts at %v", tk.Label, need, c.GridLeft)
				}
			}
			for _, b := range c.Bars {
				if b.X < c.GridLeft || b.Y < plotTop-0.05 || b.H < 0 {
					t.Errorf("bar %+v leaves the plot (grid from x=%v, top y=%v)", b, c.GridLeft, plotTop)
				}
			}
		})
	}
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// TestTickFontSizeMatchesStylesheet holds the font size that label
// widths are estimated at to the one app.css draws chart text at.
func TestTickFontSizeMatchesStylesheet(t *testing.T) {
	css, err := staticFS.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\.chart text \{[^}]*font-size: ([0-9.]+)px`).FindSubmatch(css)
	if m == nil {
		t.Fatal("app.css sets no font-size for .chart text")
	}
	if got, want := string(m[1]), strconv.Itoa(tickFontSize); got != want {
		t.Errorf("app.css draws chart text at %spx, labels are measured at %spx", got, want)
	}
}
