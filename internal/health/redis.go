package health

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// luaFailed counts one failure in a sorted set of failure times (the
// server's clock, in ms), keeping the newest ARGV[3] within the window
// ARGV[1] (ms), and returns how many there are. ARGV[2] is a unique member.
const luaFailed = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - w)
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[3]) - 1)
redis.call('PEXPIRE', KEYS[1], w)
return redis.call('ZCARD', KEYS[1])
`

// luaCool stores a cooldown of ARGV[1] ms with reason ARGV[2] unless a
// longer one is stored, and then publishes ARGV[4] on channel ARGV[3].
const luaCool = `
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) >= ms then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ms)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`

const (
	// queueSize bounds the failures and cooldowns waiting for Redis; more
	// are dropped (and counted), never waited for.
	queueSize = 1024
	// opTimeout bounds one Redis operation; loadTimeout the reading of
	// every stored cooldown.
	opTimeout   = 2 * time.Second
	loadTimeout = 10 * time.Second
	// maxShared bounds the failures of one deployment kept in Redis.
	maxShared = 1000
	// logEvery is the least time between two logged Redis errors.
	logEvery = 30 * time.Second
)

// Redis is the Shared backend of replicas using one Redis and prefix. Keys:
//
//	prefix+"fails:"+key  sorted set of failure times, by the server's clock,
//	                     expiring with the window
//	prefix+"cool:"+key   the cooldown's reason, expiring when it ends
//	prefix+"cooldowns"   the channel on which every new cooldown is published
//
// Failures and cooldowns wait in a bounded queue for Run, which does them
// one at a time, subscribes to the channel and, on every (re)connection,
// reads the stored cooldowns back. A request never waits for Redis, and a
// Redis error only leaves each replica to decide alone; errors are
// counted and logged at most every 30 seconds. Loading uses SCAN, so the
// prefix's keys must live on one node.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	log    *slog.Logger
	origin string // names this replica in its messages, to skip its own
	ops    chan op
	failed *redis.Script
	cool   *redis.Script

	recv    atomic.Pointer[receiver]
	seq     atomic.Uint64
	errs    atomic.Int64
	dropped atomic.Int64
	logged  atomic.Int64 // Unix ns of the last error logged
}

var _ Shared = (*Redis)(nil)

// receiver is what Attach set.
type receiver struct {
	failures func(key string, n int)
	cooled   func(Cooldown)
}

// op is a failure (window > 0) or a cooldown waiting for Redis.
type op struct {
	key    string
	window time.Duration
	cool   Cooldown
}

// message is a cooldown as published.
type message struct {
	Origin string `json:"origin"`
	Key    string `json:"key"`
	Reason string `json:"reason"`
	MS     int64  `json:"ms"`
}

// NewRedis returns a Shared backend keeping its keys in c under prefix;
// log (slog.Default when nil) gets its rate-limited errors. Run must run
// for it to do anything.
func NewRedis(c redis.UniversalClient, prefix string, log *slog.Logger) *Redis {
	if log == nil {
		log = slog.Default()
	}
	return &Redis{
		c:      c,
		prefix: prefix,
		log:    log,
		origin: rand.Text(),
		ops:    make(chan op, queueSize),
		failed: redis.NewScript(luaFailed),
		cool:   redis.NewScript(luaCool),
	}
}

// Attach implements Shared.
func (r *Redis) Attach(failures func(key string, n int), cooled func(Cooldown)) {
	r.recv.Store(&receiver{failures: failures, cooled: cooled})
}

// Failed implements Shared.
func (r *Redis) Failed(key string, window time.Duration) {
	r.enqueue(op{key: key, window: max(window, time.Millisecond)})
}

// Cool implements Shared.
func (r *Redis) Cool(c Cooldown) {
	if c.For > 0 {
		r.enqueue(op{key: c.Key, cool: c})
	}
}

func (r *Redis) enqueue(o op) {
	select {
	case r.ops <- o:
	default:
		r.dropped.Add(1)
	}
}

// Errors returns the number of Redis operations that failed.
func (r *Redis) Errors() int64 { return r.errs.Load() }

// Dropped returns the number of failures and cooldowns dropped because
// too many were waiting for Redis.
func (r *Redis) Dropped() int64 { return r.dropped.Load() }

// Run sends the queued failures and cooldowns to Redis and applies the
// cooldowns of other replicas until ctx ends.
func (r *Redis) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { r.send(ctx) })
	r.listen(ctx)
	wg.Wait()
}

// send does the queued operations, one at a time.
func (r *Redis) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case o := <-r.ops:
			r.do(ctx, o)
		}
	}
}

// do does one operation; a panic is logged and does not stop send.
func (r *Redis) do(ctx context.Context, o op) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("health: redis operation panicked", "key", o.key, "panic", p)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if o.window > 0 {
		member := fmt.Sprintf("%s:%d", r.origin, r.seq.Add(1))
		n, err := r.failed.Run(ctx, r.c, []string{r.prefix + "fails:" + o.key}, o.window.Milliseconds(), member, maxShared).Int()
		if err != nil {
			r.fail("count failure", err)
			return
		}
		if rc := r.recv.Load(); rc != nil {
			rc.failures(o.key, n)
		}
		return
	}
	ms := max(o.cool.For.Milliseconds(), 1)
	msg, err := json.Marshal(message{Origin: r.origin, Key: o.key, Reason: o.cool.Reason, MS: ms})
	if err == nil {
		err = r.cool.Run(ctx, r.c, []string{r.prefix + "cool:" + o.key}, ms, o.cool.Reason, r.channel(), msg).Err()
	}
	if err != nil {
		r.fail("store cooldown", err)
	}
}

func (r *Redis) channel() string { return r.prefix + "cooldowns" }

// fail counts a Redis error and logs it unless one was logged lately.
func (r *Redis) fail(what string, err error) {
	n := r.errs.Add(1)
	now := time.Now().UnixNano()
	last := r.logged.Load()
	if last != 0 && now-last < int64(logEvery) || !r.logged.CompareAndSwap(last, now) {
		return
	}
	r.log.Warn("health: redis unavailable, deciding cooldowns locally", "op", what, "err", err,
		"errors", n, "dropped", r.dropped.Load())
}

// globEscape escapes the characters SCAN's MATCH gives a meaning.
var globEscape = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
