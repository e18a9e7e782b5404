package limits

import (
	"context"
	"sync"
	"time"
)

const (
	numShards = 64
	// sweepEvery is how often, at most, a shard in use drops full buckets.
	sweepEvery = int64(time.Minute)
	// minSweepLen is the shard size below which only the timer sweeps.
	minSweepLen = 1024
)

// Memory is a Limiter for one process. Buckets live in 64 shards picked by
// an FNV-1a hash of the key, each under its own mutex. A full bucket is the
// same as none, so a shard deletes its full buckets when it has doubled in
// size since its last sweep or a minute has passed: memory stays within
// about twice the buckets in use.
type Memory struct {
	now    func() time.Time
	start  time.Time
	shards [numShards]shard
}

var _ Limiter = (*Memory)(nil)

type shard struct {
	mu sync.Mutex
	// mu guards the following.
	tat       map[string]int64 // key → theoretical arrival time, ns since start
	nextLen   int              // sweep when len(tat) reaches it
	lastSweep int64            // ns since start

	_ [64]byte // keep neighbouring shards' mutexes off this cache line
}

// NewMemory returns an in-process Limiter reading the time from now
// (time.Now if nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, start: now()}
	for i := range m.shards {
		m.shards[i].tat = make(map[string]int64)
		m.shards[i].nextLen = minSweepLen
	}
	return m
}

// Take implements Limiter.
func (m *Memory) Take(_ context.Context, key string, r Rate, cost int64) (Decision, error) {
	g, err := newGCRA(r)
	if err != nil {
		return Decision{}, err
	}
	inc, err := g.charge(cost)
	if err != nil {
		return Decision{}, err
	}
	now := m.nanos()
	s := m.shard(key)
	s.mu.Lock()
	d := s.owedLocked(key, now)
	ok := g.fits(d, inc)
	if ok && inc > 0 {
		d += inc
		s.setLocked(key, now, d)
	}
	s.mu.Unlock()
	return g.decision(ok, d, inc, cost), nil
}

// Adjust implements Limiter.
func (m *Memory) Adjust(_ context.Context, key string, r Rate, delta int64) error {
	g, err := newGCRA(r)
	if err != nil {
		return err
	}
	now := m.nanos()
	s := m.shard(key)
	s.mu.Lock()
	s.setLocked(key, now, adjusted(s.owedLocked(key, now), g.delta(delta)))
	s.mu.Unlock()
	return nil
}

// Len returns the number of buckets held, full ones not yet swept included.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.tat)
		s.mu.Unlock()
	}
	return n
}

// nanos returns the time since m was made; Sub uses the monotonic clock
// when now provides one.
func (m *Memory) nanos() int64 { return int64(m.now().Sub(m.start)) }

func (m *Memory) shard(key string) *shard {
	// FNV-1a, inline so that hashing a string does not allocate.
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= 16777619
	}
	return &m.shards[h%numShards]
}

// owedLocked returns how far key's TAT lies ahead of now, at least 0. A
// missing bucket is full, even when now is negative because a clock
// without a monotonic reading stepped back, so it is not read as TAT 0.
func (s *shard) owedLocked(key string, now int64) int64 {
	tat, ok := s.tat[key]
	if !ok {
		return 0
	}
	return max(0, tat-now)
}

// setLocked records that key owes d from now, deleting a full bucket.
func (s *shard) setLocked(key string, now, d int64) {
	if d <= 0 {
		delete(s.tat, key)
		return
	}
	s.tat[key] = now + d
	if len(s.tat) >= s.nextLen || now-s.lastSweep >= sweepEvery {
		s.sweepLocked(now)
	}
}

// sweepLocked deletes the full buckets.
func (s *shard) sweepLocked(now int64) {
	for k, tat := range s.tat {
		if tat <= now {
			delete(s.tat, k)
		}
	}
	s.nextLen = max(2*len(s.tat), minSweepLen)
	s.lastSweep = now
}
