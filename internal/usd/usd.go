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

// Errors of ParseFixed.
var (
	ErrSyntax    = errors.New("not a decimal number")
	ErrPrecision = errors.New("too many decimal places")
	ErrRange     = errors.New("too large")
)

// ParseFixed reads a non-negative decimal number exactly, without floats,
// as an integer in units of 10^-decimals: ParseFixed("0.0375", 6) is
// 37500. It accepts digits with an optional fraction of 1 to decimals
// digits, and rejects signs, exponents, spaces and anything else.
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
	scale := int64(math.Pow10(decimals))
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, ErrSyntax
	}
	if err != nil || w > (math.MaxInt64-f)/scale {
		return 0, ErrRange
	}
	return w*scale + f, nil
}

// Parse reads a non-negative decimal number of dollars exactly, without
// floats: "12.5" → 12.5 USD. It accepts digits with an optional fraction of
// up to 12 digits and an optional leading "$"; it rejects signs, exponents,
// spaces and anything else.
func Parse(s string) (Amount, error) {
	s = strings.TrimPrefix(s, "$")
	v, err := ParseFixed(s, decimals)
	switch {
	case errors.Is(err, ErrSyntax):
		return 0, fmt.Errorf("%q is not a decimal number of US dollars", s)
	case errors.Is(err, ErrPrecision):
		return 0, fmt.Errorf("%q has more than %d decimal places", s, decimals)
	case errors.Is(err, ErrRange):
		return 0, fmt.Errorf("%q is too large (at most 9223372 USD)", s)
	}
	return Amount(v), nil
}

// String formats a as dollars with no trailing zeros beyond the cents:
// 12.5 USD → "12.50", 0.000375 USD → "0.000375".
func (a Amount) String() string {
	sign := ""
	u := uint64(a)
	if a < 0 {
		sign = "-"
		u = uint64(-(a + 1)) + 1
	}
	whole, frac := u/Scale, u%Scale
	f := strings.TrimRight(fmt.Sprintf("%012d", frac), "0")
	for len(f) < 2 {
		f += "0"
	}
	return sign + strconv.FormatUint(whole, 10) + "." + f
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
