package health

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/backoff"
)

// The wait before subscribing again after an error.
const (
	resubscribeMin = 50 * time.Millisecond
	resubscribeMax = 5 * time.Second
)

// listen applies the cooldowns published by other replicas, and the
// stored ones each time the subscription is made, until ctx ends.
func (r *Redis) listen(ctx context.Context) {
	ps := r.c.Subscribe(ctx, r.channel())
	stop := context.AfterFunc(ctx, func() { ps.Close() })
	defer stop()
	defer ps.Close()
	retry := backoff.Backoff{Min: resubscribeMin, Max: resubscribeMax}
	for {
		m, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.fail("subscribe", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(retry.Next()):
			}
			continue
		}
		retry.Reset()
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				r.load(ctx)
			}
		case *redis.Message:
			r.receive(m.Payload)
		}
	}
}

// receive applies one published cooldown, unless this replica sent it.
func (r *Redis) receive(payload string) {
	var m message
	if err := json.Unmarshal([]byte(payload), &m); err != nil {
		r.fail("decode cooldown", err)
		return
	}
	if m.Origin != r.origin && m.MS > 0 {
		r.apply(Cooldown{Key: m.Key, Reason: m.Reason, For: time.Duration(m.MS) * time.Millisecond})
	}
}

func (r *Redis) apply(c Cooldown) {
	if rc := r.recv.Load(); rc != nil {
		rc.cooled(c)
	}
}

// load applies every stored cooldown, for a replica that starts or
// comes back while cooldowns are in force.
func (r *Redis) load(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	prefix := r.prefix + "cool:"
	var keys []string
	iter := r.c.Scan(ctx, 0, globEscape.Replace(prefix)+"*", 100).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		r.fail("load cooldowns", err)
		return
	}
	if len(keys) == 0 {
		return
	}
	pipe := r.c.Pipeline()
	reasons := make([]*redis.StringCmd, len(keys))
	ttls := make([]*redis.DurationCmd, len(keys))
	for i, k := range keys {
		reasons[i], ttls[i] = pipe.Get(ctx, k), pipe.PTTL(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		r.fail("load cooldowns", err)
		return
	}
	for i, k := range keys {
		// A key that expired since SCAN has no reason and no TTL.
		if reason, err := reasons[i].Result(); err == nil && ttls[i].Val() > 0 {
			r.apply(Cooldown{Key: strings.TrimPrefix(k, prefix), Reason: reason, For: ttls[i].Val()})
		}
	}
}
