package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoundOrder: the rows worked by hand from the Williams offsets 0, 1,
// n-1, 2, n-2, ..., for the five targets of a default run and the six of
// a run with -base.
func TestRoundOrder(t *testing.T) {
	tests := []struct {
		n    int
		want [][]int // by round
	}{
		{1, [][]int{{0}, {0}}},
		{2, [][]int{{0, 1}, {1, 0}, {0, 1}}},
		{5, [][]int{
			{0, 1, 4, 2, 3},
			{1, 2, 0, 3, 4},
			{2, 3, 1, 4, 0},
			{3, 4, 2, 0, 1},
			{4, 0, 3, 1, 2},
			{0, 1, 4, 2, 3}, // round 5 starts over
		}},
		{6, [][]int{
			{0, 1, 5, 2, 4, 3},
			{1, 2, 0, 3, 5, 4},
			{2, 3, 1, 4, 0, 5},
			{3, 4, 2, 5, 1, 0},
			{4, 5, 3, 0, 2, 1},
			{5, 0, 4, 1, 3, 2},
		}},
	}
	for _, tt := range tests {
		var got [][]int
		for r := range tt.want {
			got = append(got, roundOrder(tt.n, r))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("roundOrder(%d, r) (-want +got):\n%s", tt.n, diff)
		}
	}
}

// TestRoundOrderBalance: over n rounds every target runs once in every
// position, and no target follows the same one in every round it does
// not open (which no order of 3 targets can do with the first: the bench
// runs 5 or more).
func TestRoundOrderBalance(t *testing.T) {
	for n := 2; n <= 8; n++ {
		at := make([]map[int]bool, n)    // target -> positions it ran in
		after := make([]map[int]bool, n) // target -> targets it followed
		for i := range n {
			at[i], after[i] = map[int]bool{}, map[int]bool{}
		}
		for r := range n {
			order := roundOrder(n, r)
			for j, i := range order {
				at[i][j] = true
				if j > 0 {
					after[i][order[j-1]] = true
				}
			}
		}
		for i := range n {
			if len(at[i]) != n {
				t.Errorf("n=%d: target %d ran in positions %v, want each of %d once", n, i, at[i], n)
			}
			if n > 3 && len(after[i]) < 2 {
				t.Errorf("n=%d: target %d always follows %v", n, i, after[i])
			}
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 4}, 4},
		{[]float64{9, 1, 4, 2}, 3},
		{[]float64{2000, 1900, 2400, 1700, 2100}, 2000},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.xs...)
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		if diff := cmp.Diff(in, tt.xs); diff != "" {
			t.Errorf("median modified its argument (-was +is):\n%s", diff)
		}
	}
}

// TestShare: the share is the median of the per-round ratios, not the
// ratio of the medians: in "drift" the machine slowed both targets in
// rounds 3 and 5, and the ratio of the medians (1700/2000 = 0.85) would
// pair a round of one with another round of the other.
func TestShare(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		med, lo, hi float64
		ok          bool
	}{
		{"none", nil, nil, 0, 0, 0, false},
		{"one round", []float64{900}, []float64{1000}, 0.9, 0.9, 0.9, true},
		{
			// per round: 0.9, 0.95, 1, 0.85, 0.9
			"drift", []float64{1800, 1900, 1000, 1700, 1500}, []float64{2000, 2000, 1000, 2000, 5000.0 / 3},
			0.9, 0.85, 1, true,
		},
		{"even rounds", []float64{800, 1000}, []float64{1000, 1000}, 0.9, 0.8, 1, true},
		{"a round without the proxy", []float64{800, 1000}, []float64{0, 1000}, 1, 1, 1, true},
	}
	for _, tt := range tests {
		med, lo, hi, ok := share(tt.a, tt.b)
		approx := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
		if ok != tt.ok || !approx(med, tt.med) || !approx(lo, tt.lo) || !approx(hi, tt.hi) {
			t.Errorf("%s: share = %v, %v, %v, %v; want %v, %v, %v, %v", tt.name, med, lo, hi, ok, tt.med, tt.lo, tt.hi, tt.ok)
		}
	}
}
