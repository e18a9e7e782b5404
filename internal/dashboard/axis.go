package dashboard

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// axis is the scale of a chart's value axis: ticks from 0 to Top in
// equal steps of a nice number (1, 2 or 5 times a power of ten) of the
// values' unit. The steps are integers, so every label is an exact
// decimal: no label is ever formatted from a float.
type axis struct {
	Top    float64  // the last tick, in units, for drawing only
	Labels []string // of the ticks, from 0 up
}

// maxIntervals bounds the steps of an axis: 2 to 5 ticks.
const maxIntervals = 4

// niceAxis returns the axis for values from 0 to peak, in integer units
// of 10^-decimals (pico-USD with 12 decimals, counts with 0), each label
// prefixed with unit ("$" or ""). The step is the smallest nice number of
// units that reaches peak in at most maxIntervals steps (at least one
// unit); labels show the fewest decimals that tell them apart, the same
// for all, with the whole part grouped by commas. A peak ≤ 0 draws the
// axis of empty, a peak of empty.
func niceAxis(peak, empty int64, decimals int, unit string) axis {
	if peak <= 0 {
		peak = max(empty, 1)
	}
	m, e := niceStep((peak-1)/maxIntervals + 1)
	n := (peak-1)/(m*pow10(e)) + 1 // intervals: 1 to maxIntervals
	a := axis{Top: float64(n*m) * float64(pow10(e))}
	shown := max(0, decimals-e)
	for i := range n + 1 {
		a.Labels = append(a.Labels, unit+decimalLabel(i*m, e, decimals, shown))
	}
	return a
}

// niceStep returns the smallest m × 10^e at least need (1 ≤ need ≤
// MaxInt64/4), with m of 1, 2 or 5. Both factors fit an int64.
func niceStep(need int64) (m int64, e int) {
	for e = 0; ; e++ {
		for _, m := range []int64{1, 2, 5} {
			if m*pow10(e) >= need {
				return m, e
			}
		}
	}
}

// decimalLabel formats v × 10^e units of 10^-decimals with shown
// decimals (at most decimals, and every digit past them zero), from its
// digits, so that a value past an int64 (the top of an axis may be) is
// exact too: decimalLabel(25, 5, 12, 7) is "0.0000025".
func decimalLabel(v int64, e, decimals, shown int) string {
	digits := strconv.FormatInt(v, 10) + strings.Repeat("0", e)
	if v == 0 {
		digits = "0"
	}
	if pad := decimals + 1 - len(digits); pad > 0 {
		digits = strings.Repeat("0", pad) + digits
	}
	whole, frac := digits[:len(digits)-decimals], digits[len(digits)-decimals:]
	if shown == 0 {
		return groupDigitString(whole)
	}
	return groupDigitString(whole) + "." + frac[:shown]
}

// groupDigitString puts commas between groups of three digits of s, a
// string of digits of any length: "10000000" → "10,000,000".
func groupDigitString(s string) string {
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// pow10 returns 10^n for n from 0 to 18.
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// Text of a chart, in viewBox units. SVG cannot measure text before it
// is drawn, so widths are estimated: tickFontSize is the size app.css
// gives chart text (a test holds them equal), and charEm is more than
// the advance of a digit, "$" or "," in the usual sans-serif fonts
// (about 0.55 em), so that the estimate errs wide.
const (
	tickFontSize = 13
	charEm       = 0.62
	tickGap      = 6 // between a y-axis label and the grid (the template's dx)
	chartPad     = 4 // left of the widest y-axis label
)

// textWidth estimates the width of s drawn at tickFontSize.
func textWidth(s string) float64 {
	return float64(utf8.RuneCountInString(s)) * tickFontSize * charEm
}

// gridLeft returns where a plot's grid starts so that the widest of
// labels, right-aligned tickGap before it, is not cut: never less than
// plotLeft.
func gridLeft(labels []string) float64 {
	widest := 0.0
	for _, l := range labels {
		widest = max(widest, textWidth(l))
	}
	return max(plotLeft, roundUp1(chartPad+widest+tickGap))
}

// roundUp1 rounds v up to a tenth.
func roundUp1(v float64) float64 { return math.Ceil(v*10) / 10 }
