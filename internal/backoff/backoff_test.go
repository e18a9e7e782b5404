package backoff

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min, max time.Duration
		caps     []time.Duration // the upper bound of each successive wait
	}{
		{"doubles to max", 5 * time.Millisecond, 40 * time.Millisecond,
			[]time.Duration{5, 10, 20, 40, 40, 40}},
		{"max below a doubling", 3 * time.Millisecond, 10 * time.Millisecond,
			[]time.Duration{3, 6, 10, 10}},
		{"min equals max", time.Second, time.Second,
			[]time.Duration{1000, 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Backoff{Min: tc.min, Max: tc.max}
			for i, c := range tc.caps {
				c *= time.Millisecond
				for range 50 { // the jitter: each draw from a copy
					probe := *b
					if got := probe.Next(); got < c/2 || got > c {
						t.Fatalf("wait %d: %v, want within [%v, %v]", i, got, c/2, c)
					}
				}
				b.Next()
			}
			b.Reset()
			if got := b.Next(); got > tc.min {
				t.Errorf("after Reset: %v, want at most %v", got, tc.min)
			}
		})
	}
}
