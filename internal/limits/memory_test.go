package limits_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

// TestMemoryExactOneKey hammers one key with the clock frozen: exactly
// the units that fit are admitted, and each admission sees its own state.
func TestMemoryExactOneKey(t *testing.T) {
	for _, tc := range []struct {
		cost, want int64
	}{
		{1, 1000},
		{7, 142}, // floor(1000 / 7)
	} {
		t.Run(fmt.Sprintf("cost %d", tc.cost), func(t *testing.T) {
			m, _ := newMemory()
			r := limits.Rate{Limit: 1000, Period: time.Minute}
			rems := hammer(t, m, "k", r, tc.cost, 64, 50)
			if got := int64(len(rems)); got != tc.want {
				t.Fatalf("admitted %d, want %d", got, tc.want)
			}
			// Allowed decisions report Remaining want−1 … 0 (times cost,
			// here: the units left), each exactly once.
			slices.Sort(rems)
			want := make([]int64, tc.want)
			for i := range want {
				want[i] = (r.Limit - tc.cost*tc.want) + tc.cost*int64(i)
			}
			if diff := cmp.Diff(want, rems); diff != "" {
				t.Errorf("Remaining of admitted takes (-want +got):\n%s", diff)
			}
		})
	}
}

// hammer has g goroutines each Take cost from key n times, and returns
// the Remaining of every admitted Take.
func hammer(t *testing.T, lim limits.Limiter, key string, r limits.Rate, cost int64, g, n int) []int64 {
	t.Helper()
	ctx := context.Background()
	var (
		mu   sync.Mutex
		rems []int64
		wg   sync.WaitGroup
	)
	start := make(chan struct{})
	for range g {
		wg.Go(func() {
			<-start
			for range n {
				d, err := lim.Take(ctx, key, r, cost)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					rems = append(rems, d.Remaining)
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	return rems
}

// TestMemoryExactManyKeys has 64 goroutines take from 300 keys of
// different limits at once; each key admits exactly its limit.
func TestMemoryExactManyKeys(t *testing.T) {
	m, _ := newMemory()
	ctx := context.Background()
	const numKeys, g = 300, 64
	rate := func(i int) limits.Rate { return limits.Rate{Limit: int64(1 + i%97), Period: time.Minute} }
	var admitted [numKeys]atomic.Int64
	var wg sync.WaitGroup
	for w := range g {
		wg.Go(func() {
			// Each goroutine walks the keys from its own offset, trying
			// each enough times that together they ask for more than fits.
			for j := range numKeys {
				i := (j + w*numKeys/g) % numKeys
				key := fmt.Sprintf("key%d", i)
				for range rate(i).Limit/g + 2 {
					if d, err := m.Take(ctx, key, rate(i), 1); err != nil {
						t.Error(err)
					} else if d.Allowed {
						admitted[i].Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range admitted {
		if got, want := admitted[i].Load(), rate(i).Limit; got != want {
			t.Errorf("key%d admitted %d, want %d", i, got, want)
		}
	}
}

// TestMemorySweepIdle checks that a minute after buckets filled up again,
// the next writes to each shard drop them.
func TestMemorySweepIdle(t *testing.T) {
	m, c := newMemory()
	ctx := context.Background()
	r := limits.Rate{Limit: 1, Period: time.Second}
	for i := range 10000 {
		m.Take(ctx, fmt.Sprintf("old%d", i), r, 1)
	}
	if n := m.Len(); n != 10000 {
		t.Fatalf("Len = %d, want 10000", n)
	}
	c.advance(time.Minute + time.Second)
	// 1000 new keys reach all 64 shards (FNV is fixed, so this is too).
	for i := range 1000 {
		m.Take(ctx, fmt.Sprintf("new%d", i), r, 1)
	}
	if n := m.Len(); n != 1000 {
		t.Errorf("Len = %d after a minute, want the 1000 new buckets", n)
	}
	// Giving everything back deletes the buckets at once.
	for i := range 1000 {
		m.Adjust(ctx, fmt.Sprintf("new%d", i), r, -1)
	}
	if n := m.Len(); n != 0 {
		t.Errorf("Len = %d after giving back, want 0", n)
	}
}

// TestMemorySweepChurn takes from a new key every millisecond: Len stays
// within twice the buckets in use, or 1024 a shard when fewer are.
func TestMemorySweepChurn(t *testing.T) {
	for _, tc := range []struct {
		period time.Duration
		keys   int
		inUse  int // buckets not yet full at any time: period / 1ms
		bound  int
	}{
		{time.Second, 200_000, 1000, 64 * 1024},
		{100 * time.Second, 300_000, 100_000, 2 * 100_000},
	} {
		t.Run(tc.period.String(), func(t *testing.T) {
			m, c := newMemory()
			ctx := context.Background()
			r := limits.Rate{Limit: 1, Period: tc.period}
			maxLen := 0
			for i := range tc.keys {
				m.Take(ctx, "k"+strconv.Itoa(i), r, 1)
				c.advance(time.Millisecond)
				if i%1000 == 0 {
					maxLen = max(maxLen, m.Len())
				}
			}
			if maxLen > tc.bound || maxLen < tc.inUse {
				t.Errorf("Len reached %d over %d keys, want between %d in use and %d", maxLen, tc.keys, tc.inUse, tc.bound)
			}
		})
	}
}

// TestMemoryAllocs checks that a bucket in use costs no allocation.
func TestMemoryAllocs(t *testing.T) {
	m, c := newMemory()
	ctx := context.Background()
	r := limits.Rate{Limit: 100, Period: time.Second}
	m.Take(ctx, "steady", r, 1)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Take", func() { m.Take(ctx, "steady", r, 1); c.advance(10 * time.Millisecond) }},
		{"Take refused", func() { m.Take(ctx, "steady", r, 1000) }},
		{"Adjust", func() { m.Adjust(ctx, "steady", r, 1) }},
	} {
		if n := testing.AllocsPerRun(1000, tc.f); n != 0 {
			t.Errorf("%s: %v allocs, want 0", tc.name, n)
		}
	}
}
