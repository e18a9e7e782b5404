package health_test

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/testing/redistest"
	"github.com/switchyard-gw/switchyard/internal/testing/tcpproxy"
)

// replica is one gateway's Tracker shared through Redis.
type replica struct {
	tr    *health.Tracker
	r     *health.Redis
	clock *clock
}

// startReplica runs a Tracker sharing through a client of opt under
// prefix until the test ends.
func startReplica(t *testing.T, cfg health.Config, opt *redis.Options, prefix string) *replica {
	t.Helper()
	c := redis.NewClient(opt)
	tr, clk := newTracker(cfg)
	r := health.NewRedis(c, prefix, slog.New(slog.DiscardHandler))
	tr.Share(r)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		c.Close()
	})
	return &replica{tr: tr, r: r, clock: clk}
}

// subscribed waits until n replicas listen on prefix's channel, so that
// they hear what is published rather than read it back when they start.
func subscribed(t *testing.T, opt *redis.Options, prefix string, n int64) {
	t.Helper()
	c := redis.NewClient(opt)
	defer c.Close()
	ch := prefix + "cooldowns"
	eventually(t, "replicas subscribed", func() bool {
		return c.PubSubNumSub(context.Background(), ch).Val()[ch] == n
	})
}

// eventually polls cond until it holds, for at most 10 seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// coolsFor returns how long rep's Tracker keeps key out (0 when offered)
// and whether by rate limiting.
func (rep *replica) coolsFor(key string) (time.Duration, bool) {
	order, until, rl := rep.tr.Order(deps(key), catalog.StrategyWeighted)
	if len(order) == 1 {
		return 0, false
	}
	return until.Sub(rep.clock.now()), rl
}

// TestRedisFailuresAddUp: three replicas each see one failure of a
// deployment; together they reach AllowedFails and all three skip it.
func TestRedisFailuresAddUp(t *testing.T) {
	opt, prefix := redistest.Options(t)
	cfg := health.Config{AllowedFails: 3, Cooldown: 30 * s}
	reps := []*replica{startReplica(t, cfg, opt, prefix), startReplica(t, cfg, opt, prefix), startReplica(t, cfg, opt, prefix)}
	subscribed(t, opt, prefix, 3)
	probe := redis.NewClient(opt)
	defer probe.Close()

	reps[0].tr.Failure("east/m", "unavailable", 0)
	reps[1].tr.Failure("east/m", "timeout", 0)
	reps[1].tr.Failure("west/m", "timeout", 0)
	eventually(t, "two failures of east/m counted in Redis", func() bool {
		return probe.ZCard(context.Background(), prefix+"fails:east/m").Val() == 2
	})
	for i, rep := range reps {
		if d, _ := rep.coolsFor("east/m"); d != 0 {
			t.Fatalf("replica %d: east/m cools %v after two failures of three", i, d)
		}
	}
	reps[2].tr.Failure("east/m", "reset", 0)
	for i, rep := range reps {
		eventually(t, "east/m cooling on every replica", func() bool {
			d, _ := rep.coolsFor("east/m")
			return d != 0
		})
		if d, rl := rep.coolsFor("east/m"); d != 30*s || rl {
			t.Errorf("replica %d: east/m cools %v (rate limit %v), want 30s of failures", i, d, rl)
		}
		if d, _ := rep.coolsFor("west/m"); d != 0 {
			t.Errorf("replica %d: west/m cools %v after one failure", i, d)
		}
	}
}

// TestRedisCooldownSpreads: a 429 seen by one replica cools the
// deployment on the others, and on a replica started later.
func TestRedisCooldownSpreads(t *testing.T) {
	opt, prefix := redistest.Options(t)
	cfg := health.Config{}
	reps := []*replica{startReplica(t, cfg, opt, prefix), startReplica(t, cfg, opt, prefix), startReplica(t, cfg, opt, prefix)}
	subscribed(t, opt, prefix, 3)

	reps[0].tr.Failure("east/m", health.ClassRateLimit, 20*s)
	if d, rl := reps[0].coolsFor("east/m"); d != 20*s || !rl {
		t.Fatalf("deciding replica: east/m cools %v (rate limit %v), want 20s of rate limiting", d, rl)
	}
	for i, rep := range reps[1:] {
		eventually(t, "east/m cooling on the other replicas", func() bool {
			d, _ := rep.coolsFor("east/m")
			return d != 0
		})
		if d, rl := rep.coolsFor("east/m"); d != 20*s || !rl {
			t.Errorf("replica %d: east/m cools %v (rate limit %v), want 20s of rate limiting", i+1, d, rl)
		}
	}

	late := startReplica(t, cfg, opt, prefix)
	eventually(t, "a replica started later loads the stored cooldown", func() bool {
		d, _ := late.coolsFor("east/m")
		return d != 0
	})
	// What is left of it: Redis's clock has moved a little.
	if d, rl := late.coolsFor("east/m"); d <= 10*s || d > 20*s || !rl {
		t.Errorf("late replica: east/m cools %v (rate limit %v), want up to 20s of rate limiting", d, rl)
	}
	if st := late.tr.Snapshot([]string{"east/m"})[0]; st.Reason != health.ClassRateLimit {
		t.Errorf("late replica: reason %q, want %q", st.Reason, health.ClassRateLimit)
	}
}

// TestRedisReconnectLoads: a replica whose connection to Redis broke reads
// the cooldowns stored meanwhile when it is back.
func TestRedisReconnectLoads(t *testing.T) {
	opt, prefix := redistest.Options(t)
	px := tcpproxy.Start(t, opt.Addr)
	popt := *opt
	popt.Addr = px.Addr()
	rep := startReplica(t, health.Config{}, &popt, prefix)
	subscribed(t, opt, prefix, 1)
	probe := redis.NewClient(opt)
	defer probe.Close()

	// A cooldown stored while this replica is cut off, and never
	// published to it.
	px.Cut()
	if err := probe.Set(context.Background(), prefix+"cool:west/m", "overloaded", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stored cooldown read back after reconnecting", func() bool {
		d, _ := rep.coolsFor("west/m")
		return d != 0
	})
	if st := rep.tr.Snapshot([]string{"west/m"})[0]; st.Reason != "overloaded" {
		t.Errorf("reason %q, want overloaded", st.Reason)
	}
}

// TestRedisAway: with Redis gone (a port nobody listens on, or a closed
// client) failures and 429s still cool deployments locally, at once, and
// the errors are counted, and logged once.
func TestRedisAway(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := &redis.Options{Addr: ln.Addr().String(), MaxRetries: -1, DialTimeout: time.Second}
	ln.Close()
	closed := redis.NewClient(&redis.Options{Addr: dead.Addr})
	closed.Close()

	for name, c := range map[string]*redis.Client{"closed port": redis.NewClient(dead), "closed client": closed} {
		t.Run(name, func(t *testing.T) {
			tr, clk := newTracker(health.Config{AllowedFails: 2})
			var logged countHandler
			r := health.NewRedis(c, "sytest:health:none:", slog.New(&logged))
			tr.Share(r)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { r.Run(ctx) })
			defer func() { cancel(); wg.Wait(); c.Close() }()

			rep := &replica{tr: tr, r: r, clock: clk}
			for range 2000 { // more than the queue holds: dropped, never waited for
				tr.Failure("west/m", "timeout", 0)
			}
			tr.Failure("east/m", health.ClassRateLimit, 5*s)
			if d, _ := rep.coolsFor("west/m"); d != 30*s {
				t.Errorf("west/m cools %v, want 30s", d)
			}
			if d, rl := rep.coolsFor("east/m"); d != 5*s || !rl {
				t.Errorf("east/m cools %v (rate limit %v), want 5s", d, rl)
			}
			eventually(t, "Redis errors counted", func() bool { return r.Errors() >= 3 })
			if n := logged.n.Load(); n != 1 {
				t.Errorf("%d errors logged in %d lines, want 1", r.Errors(), n)
			}
		})
	}
}

// countHandler is a slog.Handler that counts the records it gets.
type countHandler struct{ n atomic.Int64 }

func (h *countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h *countHandler) Handle(context.Context, slog.Record) error { h.n.Add(1); return nil }
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h *countHandler) WithGroup(string) slog.Handler             { return h }
