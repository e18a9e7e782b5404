package limits_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

// redisLimiter returns a Redis limiter on the test Redis under a fresh
// prefix whose keys are deleted after the test, or skips.
func redisLimiter(t *testing.T) (*limits.Redis, *redis.Client, string) {
	t.Helper()
	c, prefix := redisClient(t)
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return limits.NewRedis(c, prefix), c, prefix
}

// deadRedis returns a client of a port nobody listens on.
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisBackendCases(t *testing.T) {
	lim, _, _ := redisLimiter(t)
	for _, tc := range backendCases {
		t.Run(tc.name, func(t *testing.T) {
			// Redis's clock runs: a second is far more than a case takes
			// and far less than T.
			runSteps(t, lim, nil, tc.name, backendRate, tc.steps, time.Second)
		})
	}
}

// TestRedisExact has three limiters, each with its own client as three
// replicas would, take from one key at once: together they admit the
// limit once, not three times.
func TestRedisExact(t *testing.T) {
	c0, prefix := redisClient(t)
	t.Cleanup(func() { c0.Del(context.Background(), prefix+"k") })
	reps := []limits.Limiter{limits.NewRedis(c0, prefix)}
	for range 2 {
		c, _ := redisClient(t)
		reps = append(reps, limits.NewRedis(c, prefix))
	}
	// T is 3.6s; the test takes well under that, but should it not,
	// each whole T that passed may admit one more.
	r := limits.Rate{Limit: 1000, Period: time.Hour}
	tick := r.Period / time.Duration(r.Limit)
	var (
		mu   sync.Mutex
		rems []int64
		wg   sync.WaitGroup
	)
	start := time.Now()
	for _, lim := range reps {
		wg.Go(func() {
			got := hammer(t, lim, "k", r, 1, 32, 20)
			mu.Lock()
			rems = append(rems, got...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	extra := int64(elapsed / tick)
	if n := int64(len(rems)); n < r.Limit || n > r.Limit+extra {
		t.Fatalf("3×32 goroutines admitted %d in %v, want %d (+%d for the time passed)", n, elapsed, r.Limit, extra)
	}
	if extra == 0 {
		slices.Sort(rems)
		want := make([]int64, r.Limit)
		for i := range want {
			want[i] = int64(i)
		}
		if diff := cmp.Diff(want, rems); diff != "" {
			t.Errorf("Remaining of admitted takes (-want +got):\n%s", diff)
		}
	}
	t.Logf("3×32×20 takes in %v", elapsed)
}

// TestRedisNanoseconds checks that the script keeps every nanosecond of
// a charge near 2^53 ns: the stored TAT is the server's time, which has
// whole microseconds, plus exactly the charge.
func TestRedisNanoseconds(t *testing.T) {
	lim, c, prefix := redisLimiter(t)
	ctx := context.Background()
	r := limits.Rate{Limit: 7, Period: limits.MaxPeriod}
	tick := r.Period / 7 // 370285714285714ns, not a whole microsecond
	before, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	d, err := lim.Take(ctx, "k", r, 6)
	if err != nil {
		t.Fatal(err)
	}
	after, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allowed || d.Remaining != 1 || d.ResetAfter != 6*tick {
		t.Errorf("Take(6) = %+v, want Remaining 1, ResetAfter %v", d, 6*tick)
	}
	v, err := c.HMGet(ctx, prefix+"k", "s", "n").Result()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := strconv.ParseInt(v[0].(string), 10, 64)
	n, _ := strconv.ParseInt(v[1].(string), 10, 64)
	at := time.Unix(s, n).Add(-6 * tick) // when the script ran
	if at.Nanosecond()%1000 != 0 || at.Before(before) || at.After(after) {
		t.Errorf("stored TAT − 6T = %v, want a whole microsecond in [%v, %v]", at, before, after)
	}
	// The one unit left fits, and nothing more.
	if d, _ := lim.Take(ctx, "k", r, 2); d.Allowed || d.RetryAfter <= tick-time.Second || d.RetryAfter > tick {
		t.Errorf("Take(2) = %+v, want refused with RetryAfter just under %v", d, tick)
	}
	if d, _ := lim.Take(ctx, "k", r, 1); !d.Allowed || d.Remaining != 0 {
		t.Errorf("Take(1) = %+v, want allowed with Remaining 0", d)
	}
}

// TestRedisExpiry checks that a key lives exactly as long as its bucket
// is not full.
func TestRedisExpiry(t *testing.T) {
	lim, c, prefix := redisLimiter(t)
	ctx := context.Background()
	short := limits.Rate{Limit: 1000, Period: time.Second} // T = 1ms
	if _, err := lim.Take(ctx, "short", short, 5); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, prefix+"short").Val(); ttl <= 0 || ttl > 6*time.Millisecond {
		t.Errorf("PTTL after taking 5ms = %v", ttl)
	}
	time.Sleep(50 * time.Millisecond)
	if n := c.Exists(ctx, prefix+"short").Val(); n != 0 {
		t.Error("key of a full bucket still exists")
	}

	if err := lim.Adjust(ctx, "long", backendRate, 1_000_000); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, prefix+"long").Val(); ttl <= limits.MaxPeriod-time.Minute || ttl > limits.MaxPeriod+time.Millisecond {
		t.Errorf("PTTL after charging MaxPeriod = %v", ttl)
	}
	if err := lim.Adjust(ctx, "long", backendRate, -1_000_000); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, prefix+"long").Val(); n != 0 {
		t.Error("key of a bucket given back to full still exists")
	}
}

// TestRedisErrors needs no Redis: invalid input is refused before any
// call, and an unreachable server is an error that says so.
func TestRedisErrors(t *testing.T) {
	lim := limits.NewRedis(deadRedis(t), "sytest:")
	ctx := context.Background()
	ok := limits.Rate{Limit: 10, Period: time.Second}
	if _, err := lim.Take(ctx, "k", limits.Rate{Limit: 2, Period: 1}, 1); !errors.Is(err, limits.ErrInvalid) {
		t.Errorf("Take of an invalid rate = %v, want ErrInvalid", err)
	}
	if _, err := lim.Take(ctx, "k", ok, -1); !errors.Is(err, limits.ErrInvalid) {
		t.Errorf("Take of a negative cost = %v, want ErrInvalid", err)
	}
	if err := lim.Adjust(ctx, "k", limits.Rate{}, 1); !errors.Is(err, limits.ErrInvalid) {
		t.Errorf("Adjust of an invalid rate = %v, want ErrInvalid", err)
	}
	var opErr *net.OpError
	if _, err := lim.Take(ctx, "k", ok, 1); !errors.As(err, &opErr) || errors.Is(err, limits.ErrInvalid) {
		t.Errorf("Take from a closed port = %v, want a *net.OpError", err)
	}
	if err := lim.Adjust(ctx, "k", ok, 1); !errors.As(err, &opErr) {
		t.Errorf("Adjust on a closed port = %v, want a *net.OpError", err)
	}
}
