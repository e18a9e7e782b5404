package app

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/limits"
)

// buildRedis makes the Redis client, when redis.url is set, and the
// breaker that tells the limiter and the spend counters whether it
// answers.
func (a *App) buildRedis() error {
	cfg := a.cfg
	if cfg.Redis.URL == "" {
		return nil
	}
	opt, err := redisOptions(cfg.Redis)
	if err != nil {
		return err
	}
	a.redis = redis.NewClient(opt)
	setRedisLogger(a.log)
	a.redis.AddHook(deadline(callBound(cfg.Redis.Timeout, opt)))
	if a.metrics != nil {
		a.redis.AddHook(redisTimer{a.metrics})
	}
	a.breaker = limits.NewBreaker(limits.BreakerOptions{
		Probe: func(ctx context.Context) error { return a.redis.Ping(ctx).Err() },
		Log:   a.log.With("fail_closed", cfg.Limits.FailClosed, "replicas", cfg.Limits.Replicas),
	})
	return nil
}

// redisPrefix starts every key Switchyard keeps in Redis: redis.prefix,
// "switchyard:" by default.
func (a *App) redisPrefix() string { return cmp.Or(a.cfg.Redis.Prefix, "switchyard:") }

// redisOptions returns the client options of the redis.url, with
// redis.timeout for every wait the URL does not set, no retries (unless
// the URL sets max_retries) and one dial attempt: go-redis's defaults (5 s
// timeouts, dials tried 5 times, 3 retries) held requests 1-3.5 s while
// Redis died (issue 13). A call that fails is served without Redis, and
// the breaker's probe brings Redis back within milliseconds once it
// answers, so a retry is not worth a second timeout.
func redisOptions(cfg config.Redis) (*redis.Options, error) {
	opt, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("redis.url: %w", err)
	}
	for _, d := range []*time.Duration{&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout} {
		if *d == 0 {
			*d = cfg.Timeout
		}
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1 // none
	}
	opt.DialerRetries = 1
	// The deadline hook's context bounds the whole call, waiting for a
	// pooled connection included, not each of its waits.
	opt.ContextTimeoutEnabled = true
	return opt, nil
}

// callBound is the most one command may take in all: redis.timeout, or
// the longest wait the URL sets when that is longer (a URL that asks for
// 5 s reads gets them).
func callBound(timeout time.Duration, opt *redis.Options) time.Duration {
	return max(timeout, opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout)
}

// deadline is a client hook that gives each command and pipeline at most
// d in all: with a frozen Redis, waiting for a pooled connection and then
// reading from a new one would otherwise cost twice redis.timeout.
type deadline time.Duration

func (d deadline) DialHook(next redis.DialHook) redis.DialHook { return next }

func (d deadline) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(d))
		defer cancel()
		return next(ctx, cmd)
	}
}

func (d deadline) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(d))
		defer cancel()
		return next(ctx, cmds)
	}
}

// buildRates returns the rate limiter: in process, or Redis with a
// per-process fallback while Redis is unreachable.
func (a *App) buildRates() *limits.Rates {
	mem := limits.NewMemory(nil)
	if a.redis == nil {
		return limits.NewRates(mem)
	}
	a.rates = limits.NewFallback(limits.NewRedis(a.redis, a.redisPrefix()+"rl:"), mem, limits.FallbackOptions{
		Breaker:    a.breaker,
		FailClosed: a.cfg.Limits.FailClosed,
		Replicas:   a.cfg.Limits.Replicas,
	})
	return limits.NewRates(a.rates)
}

// RedisStats reports whether Redis answers and how often it has failed;
// ok is false without Redis.
func (a *App) RedisStats() (st limits.BreakerStats, ok bool) {
	if a.breaker == nil {
		return limits.BreakerStats{}, false
	}
	return a.breaker.Stats(), true
}
