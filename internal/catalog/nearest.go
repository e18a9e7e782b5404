package catalog

import "slices"

// Nearest returns the IDs of ids nearest to s by edit distance, or, with
// prefix, the nearest prefixes of IDs (as long as s or one byte longer,
// each with a trailing *; the longer first on a tie): at most n, each
// within a third of s's length. Refusals of mistyped model IDs name them
// ("did you mean …?").
func Nearest(s string, prefix bool, ids []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := map[string]bool{}
	consider := func(name, against string) {
		if d := editDistance(s, against); d <= max(1, len(s)/3) && !seen[name] {
			seen[name] = true
			cands = append(cands, cand{name, d})
		}
	}
	for _, id := range ids {
		if !prefix {
			consider(id, id)
			continue
		}
		for k := len(s) + 1; k >= max(1, len(s)); k-- {
			if k <= len(id) {
				consider(id[:k]+"*", id[:k])
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return len(b.name) - len(a.name)
	})
	out := make([]string, 0, n)
	for _, c := range cands[:min(len(cands), n)] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
