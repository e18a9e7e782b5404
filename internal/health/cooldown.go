package health

import (
	"sync"
	"sync/atomic"
	"time"
)

// Failure classes the Tracker treats specially; others are only counted.
const (
	// ClassRateLimit is an upstream 429: a cooldown it starts is reported
	// by Order as one by rate limiting.
	ClassRateLimit = "rate_limit"
	// ReasonFailures is the reason of a cooldown started by AllowedFails
	// failures within Cooldown.
	ReasonFailures = "failures"
)

// Failure bookkeeping is bounded: an entry keeps its last
// max(AllowedFails, minFailures) failures, at most maxFailures.
const (
	minFailures = 64
	maxFailures = 4096
)

// entry is the health of one deployment.
type entry struct {
	key      string
	until    atomic.Int64 // Unix ns at which the cooldown in force ends; 0 for none
	inFlight atomic.Int64
	ewma     atomic.Int64 // average time to first byte, ns; valid when sampled != 0
	sampled  atomic.Int64 // Unix ns of the last latency sample; 0 for none
	done     func()       // Begin's result, made once

	mu        sync.Mutex  // guards the following and the writes of until, ewma and sampled
	fails     []failure   // oldest first; none older than Cooldown after a trim
	reason    string      // of the cooldown in force
	rateLimit atomic.Bool // the cooldown in force came from rate limiting; written with mu held
}

// failure is one failure of a deployment.
type failure struct {
	at    int64 // Unix ns
	class string
}

func newEntry(key string) *entry {
	e := &entry{key: key}
	e.done = func() { e.inFlight.Add(-1) }
	return e
}

// Cooling reports whether the deployment key is cooling down now. It
// takes no lock.
func (t *Tracker) Cooling(key string) bool {
	e := t.lookup(key)
	return e != nil && e.until.Load() > t.now().UnixNano()
}

// Begin counts one call to the deployment key in flight until done is
// called, for the least-busy strategy and the snapshot. done must be
// called exactly once.
func (t *Tracker) Begin(key string) (done func()) {
	e := t.entry(key)
	e.inFlight.Add(1)
	return e.done
}

// Failure counts a failure of class by the deployment key. The class is a
// short name: ClassRateLimit ("rate_limit"), "overloaded", "unavailable",
// "timeout", "reset", "first_byte_timeout"... AllowedFails failures within
// Cooldown cool the deployment for Cooldown; retryAfter > 0 (an upstream
// 429's Retry-After) cools it at once for that long, at most
// min(10 × Cooldown, 1h). A cooldown in force is only ever lengthened.
// With a Shared backend the failure is also counted across replicas, and
// a cooldown decided here is sent to them; neither waits for the backend.
func (t *Tracker) Failure(key, class string, retryAfter time.Duration) {
	cfg := t.config()
	e := t.entry(key)
	c, decided := e.fail(t.now().UnixNano(), class, retryAfter, cfg)
	s := t.sharedBackend()
	if s == nil {
		return
	}
	if decided {
		s.Cool(c)
	}
	if cfg.AllowedFails > 0 {
		s.Failed(key, cfg.Cooldown)
	}
}

// fail records a failure at now and reports the cooldown it decides.
func (e *entry) fail(now int64, class string, retryAfter time.Duration, cfg *Config) (Cooldown, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.trimLocked(now, cfg)
	limit := min(max(cfg.AllowedFails, minFailures), maxFailures)
	if len(e.fails) >= limit {
		n := copy(e.fails, e.fails[len(e.fails)-limit+1:])
		e.fails = e.fails[:n]
	}
	e.fails = append(e.fails, failure{at: now, class: class})
	switch {
	case retryAfter > 0:
		d := min(retryAfter, cfg.maxCooldown())
		return Cooldown{Key: e.key, Reason: class, For: d}, e.coolLocked(now, d, class)
	case cfg.AllowedFails > 0 && len(e.fails) >= cfg.AllowedFails:
		return e.coolByCountLocked(now, cfg)
	}
	return Cooldown{}, false
}

// coolByCountLocked starts a cooldown of AllowedFails failures unless one
// is in force: the failures of calls that were in flight when it began do
// not lengthen it.
func (e *entry) coolByCountLocked(now int64, cfg *Config) (Cooldown, bool) {
	if e.until.Load() > now {
		return Cooldown{}, false
	}
	e.coolLocked(now, cfg.Cooldown, ReasonFailures)
	return Cooldown{Key: e.key, Reason: ReasonFailures, For: cfg.Cooldown}, true
}

// trimLocked forgets the failures older than Cooldown: a failure counts
// while now − at < Cooldown.
func (e *entry) trimLocked(now int64, cfg *Config) {
	old := 0
	for old < len(e.fails) && now-e.fails[old].at >= int64(cfg.Cooldown) {
		old++
	}
	if old > 0 {
		n := copy(e.fails, e.fails[old:])
		clear(e.fails[n:]) // let go of the class strings
		e.fails = e.fails[:n]
	}
}

// coolLocked makes the deployment cool until now+d unless a cooldown in
// force ends later, and reports whether it did.
func (e *entry) coolLocked(now int64, d time.Duration, reason string) bool {
	until := now + int64(d)
	if until <= e.until.Load() {
		return false
	}
	e.reason = reason
	e.rateLimit.Store(reason == ClassRateLimit)
	e.until.Store(until)
	return true
}

// sharedFailures is told by the Shared backend that n failures of key
// were counted across replicas within the last Cooldown.
func (t *Tracker) sharedFailures(key string, n int) {
	cfg := t.config()
	if cfg.AllowedFails <= 0 || n < cfg.AllowedFails {
		return
	}
	e := t.entry(key)
	e.mu.Lock()
	c, decided := e.coolByCountLocked(t.now().UnixNano(), cfg)
	e.mu.Unlock()
	if s := t.sharedBackend(); decided && s != nil {
		s.Cool(c)
	}
}

// applyCooldown applies a cooldown another replica decided (or stored).
func (t *Tracker) applyCooldown(c Cooldown) {
	if c.For <= 0 {
		return
	}
	e := t.entry(c.Key)
	now := t.now().UnixNano()
	e.mu.Lock()
	e.coolLocked(now, min(c.For, maxRetryAfter), c.Reason)
	e.mu.Unlock()
}
