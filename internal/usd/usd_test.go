package usd_test

import (
	"errors"
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
		{"2.5", 12, 2_500_000_000_000, nil},
		{"0.000000000001", 12, 1, nil},
		{"9223372.036854775807", 12, math.MaxInt64, nil},
		{"9223372.036854775808", 12, 0, usd.ErrRange},
		{"99999999999999999999", 6, 0, usd.ErrRange},
		{"0.1234567", 6, 0, usd.ErrPrecision},
		{"", 6, 0, usd.ErrSyntax},
		{"1.", 6, 0, usd.ErrSyntax},
		{".5", 6, 0, usd.ErrSyntax},
		{"-1", 6, 0, usd.ErrSyntax},
		{"+1", 6, 0, usd.ErrSyntax},
		{"1e3", 6, 0, usd.ErrSyntax},
		{" 1", 6, 0, usd.ErrSyntax},
		{"1,5", 6, 0, usd.ErrSyntax},
		{"١", 6, 0, usd.ErrSyntax},
	} {
		got, err := usd.ParseFixed(tc.in, tc.decimals)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("ParseFixed(%q, %d) = %d, %v; want %d, %v", tc.in, tc.decimals, got, err, tc.want, tc.err)
		}
	}
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
