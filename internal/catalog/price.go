package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Price is a price per token in pico-USD (1e-12 USD), which is the same
// number as USD per million tokens × 1e6: 2.5 USD/Mtok = 2_500_000.
// Integer prices keep cost sums exact.
type Price int64

// priceDecimals is how many decimal places of USD per Mtok a Price holds.
const priceDecimals = 6

// ParsePrice parses a decimal number of USD per million tokens exactly,
// without floats: "0.0375" → 37_500, "10" → 10_000_000. It accepts digits
// with an optional fractional part of 1 to 6 digits, and rejects signs,
// exponents, spaces and anything else.
func ParsePrice(s string) (Price, error) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("price %q is negative", s)
	}
	v, err := usd.ParseFixed(s, priceDecimals)
	switch {
	case errors.Is(err, usd.ErrPrecision):
		return 0, fmt.Errorf("price %q has more than %d decimal places", s, priceDecimals)
	case errors.Is(err, usd.ErrRange):
		return 0, fmt.Errorf("price %q is too large", s)
	case err != nil:
		return 0, fmt.Errorf("price %q is not a decimal number of USD per million tokens", s)
	}
	return Price(v), nil
}

// String formats p as USD per million tokens, with no trailing zeros:
// 37_500 → "0.0375", 10_000_000 → "10".
func (p Price) String() string {
	return usd.FormatFixed(int64(p), priceDecimals, 0)
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
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
