package limits

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// spendTTL keeps a month's counters well past its end.
const spendTTL = 40 * 24 * time.Hour

// luaAddIfExists adds ARGV[1] to KEYS[1] only when the counter exists (it
// was loaded from the database), and returns the new value or -1.
const luaAddIfExists = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('INCRBY', KEYS[1], ARGV[1])
end
return -1
`

// RedisSpend is a Spend shared by every process using the same Redis and
// prefix: counters are loaded from the database with SET NX, so the first
// replica to need one fills it for all, and additions are atomic INCRBYs,
// so exactly one replica sees each new total.
type RedisSpend struct {
	c      redis.UniversalClient
	prefix string
	load   SpendLoader
	obs    SpendObserver
	log    *slog.Logger
	add    *redis.Script
	adds   chan spendAdd

	flights singleflight.Group

	dropped atomic.Int64 // additions dropped because the queue was full
	failed  atomic.Int64 // additions that Redis refused
	// b is open while Redis does not answer: Month fails at once instead
	// of every request waiting for a timeout (issue 13).
	b     *Breaker
	ownsB bool                // Run runs b
	stale map[string]struct{} // owned by Run: counters that missed additions

	// Owned by Run: a batch's counters, emptied after it for the next.
	sums     map[string]int64      // the batch's additions per counter
	accounts map[string]spendAdd   // an addition of each account counter
	cmds     map[string]*redis.Cmd // each counter's INCRBY
}

var _ Spend = (*RedisSpend)(nil)

type spendAdd struct {
	account, key, period string
	cost                 usd.Amount
}

// NewRedisSpend returns a Spend on c under prefix. Run must be running
// for AddSpend to reach Redis. b is the breaker of c shared with the rate
// limiter (see Fallback); when nil, the Spend has its own, run by Run.
func NewRedisSpend(c redis.UniversalClient, prefix string, load SpendLoader, obs SpendObserver, b *Breaker, log *slog.Logger) *RedisSpend {
	if log == nil {
		log = slog.Default()
	}
	s := &RedisSpend{c: c, prefix: prefix, load: load, obs: obs, log: log, b: b,
		add: redis.NewScript(luaAddIfExists), adds: make(chan spendAdd, 65536), stale: map[string]struct{}{},
		sums: map[string]int64{}, accounts: map[string]spendAdd{}, cmds: map[string]*redis.Cmd{}}
	if b == nil {
		s.b = NewBreaker(BreakerOptions{Probe: func(ctx context.Context) error { return c.Ping(ctx).Err() }, Log: log})
		s.ownsB = true
	}
	return s
}

func (s *RedisSpend) name(isKey bool, id, period string) string {
	if isKey {
		return s.prefix + "spend:" + period + ":key:" + id
	}
	return s.prefix + "spend:" + period + ":acct:" + id
}

// Month implements Spend. While Redis is down it fails at once.
func (s *RedisSpend) Month(ctx context.Context, accountID, keyID, period string) (usd.Amount, usd.Amount, error) {
	if !s.b.Up() {
		return 0, 0, ErrBackendDown
	}
	a, k, err := s.month(ctx, accountID, keyID, period)
	if err != nil && ctx.Err() == nil && isRedisErr(err) {
		s.b.Fail(err)
	}
	return a, k, err
}

// isRedisErr reports whether err came from Redis (not from the database
// that fills a missing counter).
func isRedisErr(err error) bool {
	var re *redisError
	return errors.As(err, &re)
}

// redisError marks an error of a Redis call.
type redisError struct{ err error }

func (e *redisError) Error() string { return "limits: redis spend: " + e.err.Error() }
func (e *redisError) Unwrap() error { return e.err }

func (s *RedisSpend) month(ctx context.Context, accountID, keyID, period string) (usd.Amount, usd.Amount, error) {
	names := []string{s.name(false, accountID, period)}
	if keyID != "" {
		names = append(names, s.name(true, keyID, period))
	}
	vals, err := s.c.MGet(ctx, names...).Result()
	if err != nil {
		return 0, 0, &redisError{err}
	}
	if !loaded(vals) {
		v, err, _ := s.flights.Do(strings.Join(names, "\x00"), func() (any, error) {
			return s.fill(ctx, names, accountID, keyID, period)
		})
		if err != nil {
			return 0, 0, err
		}
		vals = v.([]any)
	}
	a, k := amount(vals[0]), usd.Amount(0)
	if len(vals) > 1 {
		k = amount(vals[1])
	}
	return a, k, nil
}

// fill loads the month's spend from the database into Redis where a
// counter is missing (SET NX: the first replica wins) and reads them back.
func (s *RedisSpend) fill(ctx context.Context, names []string, accountID, keyID, period string) ([]any, error) {
	a, k, err := s.load.MonthSpend(ctx, accountID, keyID, period)
	if err != nil {
		return nil, err
	}
	vals := []usd.Amount{a, k}
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			p.SetNX(ctx, n, int64(vals[i]), spendTTL)
		}
		return nil
	})
	if err != nil {
		return nil, &redisError{err}
	}
	got, err := s.c.MGet(ctx, names...).Result()
	if err != nil {
		return nil, &redisError{err}
	}
	return got, nil
}

func loaded(vals []any) bool {
	for _, v := range vals {
		if v == nil {
			return false
		}
	}
	return true
}

func amount(v any) usd.Amount {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return usd.Amount(n)
}

// AddSpend implements Spend: it queues the addition for Run.
func (s *RedisSpend) AddSpend(accountID, keyID, period string, cost usd.Amount) {
	select {
	case s.adds <- spendAdd{accountID, keyID, period, cost}:
	default:
		s.dropped.Add(1)
	}
}

// Dropped returns how many additions were dropped (full queue) or refused
// by Redis; the database keeps them, and affected counters are reloaded.
func (s *RedisSpend) Dropped() int64 { return s.dropped.Load() + s.failed.Load() }

// Run sends queued additions to Redis in pipelined batches until ctx
// ends, and runs the Spend's own breaker if it has one.
func (s *RedisSpend) Run(ctx context.Context) {
	if s.ownsB {
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { s.b.Run(ctx) })
	}
	batch := make([]spendAdd, 0, 256)
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-s.adds:
			batch = append(batch[:0], a)
		}
	more:
		for len(batch) < cap(batch) {
			select {
			case a := <-s.adds:
				batch = append(batch, a)
			default:
				break more
			}
		}
		s.safeSend(ctx, batch)
	}
}

func (s *RedisSpend) safeSend(ctx context.Context, batch []spendAdd) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("redis spend panic", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	s.send(ctx, batch)
}

// send adds a batch, summed per counter, and tells the observer of each
// account's new total. After a failure, the counters that missed
// additions are deleted once Redis answers again, so that they reload
// from the database instead of staying short.
func (s *RedisSpend) send(ctx context.Context, batch []spendAdd) {
	sums, accounts, cmds := s.sums, s.accounts, s.cmds
	defer func() { clear(sums); clear(accounts); clear(cmds) }()
	for _, a := range batch {
		an := s.name(false, a.account, a.period)
		sums[an] += int64(a.cost)
		accounts[an] = a
		if a.key != "" {
			sums[s.name(true, a.key, a.period)] += int64(a.cost)
		}
	}
	if !s.b.Up() {
		s.missed(len(batch), sums)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for n, v := range sums {
			cmds[n] = p.Eval(ctx, luaAddIfExists, []string{n}, v)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		s.missed(len(batch), sums)
		if !errors.Is(err, context.Canceled) {
			s.b.Fail(err)
		}
		s.log.Warn("redis spend: additions failed; counters will reload from the database", "err", err)
		return
	}
	s.forgetStale(ctx)
	for n, a := range accounts {
		if total, err := cmds[n].Int64(); err == nil && total >= 0 && s.obs != nil {
			s.obs.Observe(a.account, a.period, usd.Amount(total))
		}
	}
}

// missed counts n additions that did not reach Redis and marks their
// counters stale.
func (s *RedisSpend) missed(n int, sums map[string]int64) {
	s.failed.Add(int64(n))
	for name := range sums {
		if len(s.stale) < 100000 {
			s.stale[name] = struct{}{}
		}
	}
}

// forgetStale deletes counters that missed additions during an outage.
func (s *RedisSpend) forgetStale(ctx context.Context) {
	if len(s.stale) == 0 {
		return
	}
	names := make([]string, 0, len(s.stale))
	for n := range s.stale {
		names = append(names, n)
	}
	if err := s.c.Del(ctx, names...).Err(); err == nil {
		clear(s.stale)
	}
}
