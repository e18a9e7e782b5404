// Package usd holds money as integer pico-dollars, so that costs, spend,
// budgets and thresholds add up exactly and never pass through a float.
package usd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Amount is a sum of money in pico-USD (1e-12 USD). A catalogue price is
// pico-USD per token, so tokens × price is an exact Amount. An int64 holds
// up to about 9.2 million USD.
type Amount int64

// Scale is the number of Amount units in one USD.
const Scale = 1_000_000_000_000

// decimals is how many decimal places of USD an Amount holds.
const decimals = 12

// Cents, Micro are handy units.
const (
	Micro Amount = 1_000_000 // one micro-dollar
	Cent  Amount = 10_000_000_000
	USD   Amount = Scale
)

// Errors of ParseFixed, for callers that word their own messages.
var (
	ErrSyntax    = errors.New("not a decimal number")
	ErrPrecision = errors.New("too many decimal places")
	ErrRange     = errors.New("too large")
)

// ParseFixed reads a non-negative decimal number exactly, without floats,
// as an integer in units of 10^-decimals (0 to 18): ParseFixed("0.0375", 6)
// is 37_500. It accepts digits with an optional fraction of 1 to decimals
// digits and rejects signs, exponents, spaces and anything else
// (ErrSyntax), longer fractions (ErrPrecision) and numbers an int64 cannot
// hold (ErrRange).
func ParseFixed(s string, decimals int) (int64, error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if !digits(whole) || hasDot && !digits(frac) {
		return 0, ErrSyntax
	}
	if len(frac) > decimals {
		return 0, ErrPrecision
	}
	f := int64(0)
	if frac != "" {
		// At most decimals digits after padding: cannot fail.
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", decimals-len(frac)), 10, 64)
	}
	scale := pow10(decimals)
	w, err := strconv.ParseInt(whole, 10, 64) // only digits: fails only out of range
	if err != nil || w > (math.MaxInt64-f)/scale {
		return 0, ErrRange
	}
	return w*scale + f, nil
}

// FormatFixed formats v, an integer in units of 10^-decimals (0 to 18), as
// a decimal number without trailing zeros but with at least minDecimals
// decimal places: FormatFixed(37_500, 6, 0) is "0.0375",
// FormatFixed(10_000_000, 6, 0) is "10" and FormatFixed(10_000_000, 6, 2)
// is "10.00". ParseFixed reads what it writes of non-negative numbers.
func FormatFixed(v int64, decimals, minDecimals int) string {
	sign := ""
	u := uint64(v)
	if v < 0 {
		sign = "-"
		u = uint64(-(v + 1)) + 1 // no overflow for math.MinInt64
	}
	scale := uint64(pow10(decimals))
	whole := strconv.FormatUint(u/scale, 10)
	frac := strings.TrimRight(fmt.Sprintf("%0*d", decimals, u%scale), "0")
	for len(frac) < minDecimals {
		frac += "0"
	}
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}

// Parse reads a non-negative decimal number of dollars exactly, without
// floats: "12.5" → 12.5 USD. It accepts digits with an optional fraction of
// up to 12 digits and an optional leading "$"; it rejects signs, exponents,
// spaces and anything else.
func Parse(s string) (Amount, error) {
	s = strings.TrimPrefix(s, "$")
	v, err := ParseFixed(s, decimals)
	switch {
	case errors.Is(err, ErrPrecision):
		return 0, fmt.Errorf("%q has more than %d decimal places", s, decimals)
	case errors.Is(err, ErrRange):
		return 0, fmt.Errorf("%q is too large (at most 9223372 USD)", s)
	case err != nil:
		return 0, fmt.Errorf("%q is not a decimal number of US dollars", s)
	}
	return Amount(v), nil
}

// String formats a as dollars with no trailing zeros beyond the cents:
// 12.5 USD → "12.50", 0.000375 USD → "0.000375".
func (a Amount) String() string {
	return FormatFixed(int64(a), decimals, 2)
}

// Dollars returns "$" + String(), for messages.
func (a Amount) Dollars() string {
	if a < 0 {
		return "-$" + (-a).String()
	}
	return "$" + a.String()
}

// Cost returns tokens × price (pico-USD per token), saturating instead of
// overflowing.
func Cost(tokens int64, pricePerToken int64) Amount {
	if tokens <= 0 || pricePerToken <= 0 {
		return 0
	}
	if tokens > math.MaxInt64/pricePerToken {
		return math.MaxInt64
	}
	return Amount(tokens * pricePerToken)
}

// pow10 returns 10^n for n from 0 to 18.
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
