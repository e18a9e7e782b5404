package limits

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Each script works on one hash {s, n}: the bucket's TAT in the server's
// TIME as whole seconds and nanoseconds, so that no number the script
// handles reaches 2^53 and Lua's doubles stay exact. Differences of TATs
// are at most 2 × MaxPeriod. The key expires when the bucket is full.
const luaCommon = `
local t = redis.call('TIME')
local s, n = tonumber(t[1]), tonumber(t[2]) * 1000
local function owed(key)
  local v = redis.call('HMGET', key, 's', 'n')
  if not v[1] then return 0 end
  local d = (tonumber(v[1]) - s) * 1000000000 + (tonumber(v[2]) - n)
  if d < 0 then return 0 end
  return d
end
local function store(key, d)
  if d <= 0 then
    redis.call('DEL', key)
    return
  end
  local x = n + d
  local sec = s + math.floor(x / 1000000000)
  redis.call('HSET', key, 's', string.format('%d', sec), 'n', string.format('%d', x % 1000000000))
  redis.call('PEXPIRE', key, string.format('%d', math.floor(d / 1000000) + 1))
end
`

// luaTake: ARGV inc, tau (ns). Returns {allowed, owed after}.
const luaTake = luaCommon + `
local inc, tau = tonumber(ARGV[1]), tonumber(ARGV[2])
local d = owed(KEYS[1])
if d + inc > tau then return {0, d} end
if inc > 0 then
  d = d + inc
  store(KEYS[1], d)
end
return {1, d}
`

// luaAdjust: ARGV delta, max (ns). Returns the owed time after.
const luaAdjust = luaCommon + `
local delta, cap = tonumber(ARGV[1]), tonumber(ARGV[2])
local d = owed(KEYS[1]) + delta
if d < 0 then d = 0 end
if d > cap then d = cap end
store(KEYS[1], d)
return d
`

// Redis is a Limiter shared by every process using the same Redis and
// prefix. Each operation is one Lua script (EVALSHA, falling back to EVAL
// when the server lacks it), atomic on the server and timed by its clock.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	take   *redis.Script
	adjust *redis.Script
}

var _ Limiter = (*Redis)(nil)

// NewRedis returns a Limiter keeping buckets in c under keys prefix+key.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{
		c:      c,
		prefix: prefix,
		take:   redis.NewScript(luaTake),
		adjust: redis.NewScript(luaAdjust),
	}
}

// Take implements Limiter.
func (r *Redis) Take(ctx context.Context, key string, rate Rate, cost int64) (Decision, error) {
	g, err := newGCRA(rate)
	if err != nil {
		return Decision{}, err
	}
	inc, err := g.charge(cost)
	if err != nil {
		return Decision{}, err
	}
	res, err := r.take.Run(ctx, r.c, []string{r.prefix + key}, inc, g.tau).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("limits: redis take: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, fmt.Errorf("limits: redis take: unexpected reply %v", res)
	}
	return g.decision(res[0] == 1, res[1], inc, cost), nil
}

// Adjust implements Limiter.
func (r *Redis) Adjust(ctx context.Context, key string, rate Rate, delta int64) error {
	g, err := newGCRA(rate)
	if err != nil {
		return err
	}
	err = r.adjust.Run(ctx, r.c, []string{r.prefix + key}, g.delta(delta), int64(MaxPeriod)).Err()
	if err != nil {
		return fmt.Errorf("limits: redis adjust: %w", err)
	}
	return nil
}
