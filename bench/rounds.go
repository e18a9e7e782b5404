package main

import "slices"

// roundOrder is the order in which n targets run in round r (0-based),
// as indexes into the targets: row r mod n of a Williams design. Over n
// rounds each target runs once in each position, so none always goes
// first or last, and a target follows a different neighbour from round to
// round (for even n each ordered pair is adjacent exactly once), where a
// plain rotation would keep every target behind the same one. (For n <= 3
// it is a rotation: no other order has each target once in each position.
// The bench runs 5 targets or more.) The machine drifts over a run, and a
// target's req/s depends on what ran just before it (a process whose
// caches went cold, a gateway's ledger write still going); spreading both
// over the targets keeps them out of the ratios between targets.
func roundOrder(n, r int) []int {
	order := make([]int, n)
	for j := range order {
		// The offsets are 0, 1, n-1, 2, n-2, 3, ...
		off := (j + 1) / 2
		if j%2 == 0 {
			off = n - j/2
		}
		order[j] = (r + off) % n
	}
	return order
}

// median is the middle of xs, the mean of the two middle ones when there
// is an even number of them, and 0 when there are none. xs is not
// modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}

// ratios is a[i]/b[i] for each round i: a target's req/s against
// another's in the same round, so that what drifts between rounds drops
// out of the ratio. A round where b is 0 gives no ratio.
func ratios(a, b []float64) []float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	return rs
}

// share is the median of the per-round ratios of a to b and their least
// and greatest, for the table's "% of" columns; ok is false when there is
// no round to compare.
func share(a, b []float64) (med, lo, hi float64, ok bool) {
	rs := ratios(a, b)
	if len(rs) == 0 {
		return 0, 0, 0, false
	}
	return median(rs), slices.Min(rs), slices.Max(rs), true
}
