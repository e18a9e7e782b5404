package limits_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/testing/redistest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// benchKeys are many keys, as many API keys and accounts would make.
var benchKeys = func() []string {
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = "r:k:key_" + strconv.Itoa(i)
	}
	return keys
}()

// benchTake runs Take from parallel goroutines: on one key that always
// has room (T is 1ns), so every Take writes, and on many keys of 10,000
// a minute.
func benchTake(b *testing.B, lim limits.Limiter) {
	ctx := context.Background()
	b.Run("one key", func(b *testing.B) {
		r := limits.Rate{Limit: 1_000_000_000, Period: time.Second}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := lim.Take(ctx, "r:k:key_1", r, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("many keys", func(b *testing.B) {
		r := limits.Rate{Limit: 10_000, Period: time.Minute}
		var start atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := int(start.Add(7919)) % len(benchKeys)
			for pb.Next() {
				if _, err := lim.Take(ctx, benchKeys[i], r, 1); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % len(benchKeys)
			}
		})
	})
}

func BenchmarkMemoryTake(b *testing.B) {
	benchTake(b, limits.NewMemory(nil))
}

func BenchmarkRedisTake(b *testing.B) {
	opt, prefix := redistest.Options(b)
	c := redis.NewClient(opt)
	defer c.Close()
	benchTake(b, limits.NewRedis(c, prefix))
}

// totals is a SpendObserver passing each total on.
type totals chan usd.Amount

func (c totals) Observe(_, _ string, spend usd.Amount) { c <- spend }

// BenchmarkRedisAddSpend is an addition on its way to Redis and the
// observer, one at a time, so that each is a batch of its own: one
// client's records.
func BenchmarkRedisAddSpend(b *testing.B) {
	opt, prefix := redistest.Options(b)
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	seen := make(totals, 1)
	s := limits.NewRedisSpend(c, prefix, &loader{account: usd.USD}, seen, nil, nil)
	wg.Go(func() { s.Run(ctx) })
	if _, _, err := s.Month(ctx, "acct_a", "key_a", "2026-11"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.AddSpend("acct_a", "key_a", "2026-11", usd.Cent)
		<-seen
	}
}
