package limits_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/testing/redistest"
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
