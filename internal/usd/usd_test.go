package usd_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

func TestParseFixed(t *testing.T) {
	for _, tc := range []struct {
		in       string
		decimals int
		want     int64
		err      error
	}{
		{"0", 6, 0, nil},
		{"10", 6, 10_000_000, nil},
		{"0.0375", 6, 37_500, nil},
		{"007.10", 6, 7_100_000, nil},
		{"2.5", 12, 2_500_000_000_000, nil},
		{"0.000000000001", 12, 1, nil},
		{"42", 0, 42, nil},
		{"9223372036854775807", 0, math.MaxInt64, nil},
		{"9223372036854.775807", 6, math.MaxInt64, nil},
		{"9223372.036854775807", 12, math.MaxInt64, nil},
		// Overflow: of the fraction's sum, of the scaled whole part, of the digits themselves.
		{"9223372.036854775808", 12, 0, usd.ErrRange},
		{"9223372036855", 6, 0, usd.ErrRange},
		{"99999999999999999999", 6, 0, usd.ErrRange},
		{"9223372036854775808", 0, 0, usd.ErrRange},
		{"0.1234567", 6, 0, usd.ErrPrecision},
		{"0.0000000000001", 12, 0, usd.ErrPrecision},
		{"1.5", 0, 0, usd.ErrPrecision},
		{"", 6, 0, usd.ErrSyntax},
		{".", 6, 0, usd.ErrSyntax},
		{"1.", 6, 0, usd.ErrSyntax},
		{".5", 6, 0, usd.ErrSyntax},
		{"1.2.3", 6, 0, usd.ErrSyntax},
		{"-1", 6, 0, usd.ErrSyntax},
		{"+1", 6, 0, usd.ErrSyntax},
		{"1e3", 6, 0, usd.ErrSyntax},
		{"0x10", 6, 0, usd.ErrSyntax},
		{"1_000", 6, 0, usd.ErrSyntax},
		{"$1", 12, 0, usd.ErrSyntax},
		{" 1", 6, 0, usd.ErrSyntax},
		{"1 ", 6, 0, usd.ErrSyntax},
		{"1,5", 6, 0, usd.ErrSyntax},
		{"١", 6, 0, usd.ErrSyntax},
	} {
		t.Run(fmt.Sprintf("%q/%d", tc.in, tc.decimals), func(t *testing.T) {
			got, err := usd.ParseFixed(tc.in, tc.decimals)
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Errorf("ParseFixed(%q, %d) = %d, %v; want %d, %v", tc.in, tc.decimals, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestFormatFixed(t *testing.T) {
	for _, tc := range []struct {
		v                     int64
		decimals, minDecimals int
		want                  string
	}{
		{37_500, 6, 0, "0.0375"},
		{10_000_000, 6, 0, "10"},
		{10_000_000, 6, 2, "10.00"},
		{12_500_000_000_000, 12, 2, "12.50"},
		{375_000_000, 12, 2, "0.000375"},
		{0, 6, 0, "0"},
		{0, 12, 2, "0.00"},
		{1, 12, 2, "0.000000000001"},
		{42, 0, 0, "42"},
		{-2_500_000, 6, 0, "-2.5"},
		{math.MaxInt64, 6, 0, "9223372036854.775807"},
		{math.MinInt64, 6, 0, "-9223372036854.775808"},
		{math.MinInt64, 12, 2, "-9223372.036854775808"},
	} {
		if got := usd.FormatFixed(tc.v, tc.decimals, tc.minDecimals); got != tc.want {
			t.Errorf("FormatFixed(%d, %d, %d) = %q, want %q", tc.v, tc.decimals, tc.minDecimals, got, tc.want)
		}
	}
}

func FuzzParseFixed(f *testing.F) {
	for _, s := range []string{"0", "0.0375", "10", "1.", ".5", "-1", "1e3", "9223372.036854775807", "99999999999999999999"} {
		f.Add(s, 6)
		f.Add(s, 12)
	}
	f.Fuzz(func(t *testing.T, s string, decimals int) {
		if decimals < 0 || decimals > 18 {
			return
		}
		v, err := usd.ParseFixed(s, decimals)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseFixed(%q, %d) = %d, negative", s, decimals, v)
		}
		out := usd.FormatFixed(v, decimals, 0)
		if back, err := usd.ParseFixed(out, decimals); err != nil || back != v {
			t.Fatalf("ParseFixed(%q, %d) = %d; FormatFixed %q parses back as %d, %v", s, decimals, v, out, back, err)
		}
	})
}

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		want    usd.Amount
	}{
		{"12.5", "12.50", 12*usd.USD + 50*usd.Cent},
		{"$0.000375", "0.000375", 375 * usd.Micro},
		{"0", "0.00", 0},
		{"100", "100.00", 100 * usd.USD},
		{"0.000000000001", "0.000000000001", 1},
	} {
		got, err := usd.Parse(tc.in)
		if err != nil || got != tc.want || got.String() != tc.out {
			t.Errorf("Parse(%q) = %d (%s), %v; want %d (%s)", tc.in, got, got, err, tc.want, tc.out)
		}
	}
	for _, bad := range []string{"-1", "1e2", "abc", "1.0000000000001", "99999999"} {
		if _, err := usd.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if got := usd.Amount(-1500 * usd.Micro).Dollars(); got != "-$0.0015" {
		t.Errorf("Dollars of a negative amount = %q", got)
	}
	if got := usd.Amount(math.MinInt64).String(); got != "-9223372.036854775808" {
		t.Errorf("String(MinInt64) = %q", got)
	}
}

func TestCost(t *testing.T) {
	for _, tc := range []struct {
		tokens, price int64
		want          usd.Amount
	}{
		{1000, 2_500_000, 2_500_000_000},
		{0, 2_500_000, 0},
		{10, 0, 0},
		{-5, 10, 0},
		{math.MaxInt64, 2, math.MaxInt64},
	} {
		if got := usd.Cost(tc.tokens, tc.price); got != tc.want {
			t.Errorf("Cost(%d, %d) = %d, want %d", tc.tokens, tc.price, got, tc.want)
		}
	}
}
