// Package health keeps the passive health of deployments (cooldowns after
// failures or an upstream 429, calls in flight, latency), the retry budget
// of each model, and from them the order in which a request tries a
// model's deployments; shared between replicas through Redis when given
// a Shared backend.
package health

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Config tunes a Tracker. A zero field takes its default.
type Config struct {
	// Cooldown is how long a deployment is skipped once it has failed
	// AllowedFails times within the last Cooldown; default 30s.
	Cooldown time.Duration
	// AllowedFails is the number of failures within Cooldown that makes a
	// deployment cool down; default 3. Below 0, failures never cool a
	// deployment by their count (an upstream Retry-After still does).
	AllowedFails int

	// The retry budget (Linkerd-style): over a sliding BudgetWindow per
	// model, retries may be at most max(BudgetRatio × first attempts,
	// BudgetMinPerSecond × BudgetWindow in seconds).
	//
	// BudgetRatio defaults to 0.2; below 0 it is 0.
	BudgetRatio float64
	// BudgetWindow defaults to 10s; it is counted in whole seconds (at
	// least 1, at most 5 minutes), one bucket per second.
	BudgetWindow time.Duration
	// BudgetMinPerSecond defaults to 1, so a quiet model can still retry;
	// below 0 it is 0.
	BudgetMinPerSecond float64

	// LatencyHalfLife is the half-life of the moving average of time to
	// first byte, in time rather than in samples: a sample taken Δt after
	// the previous one weighs 1 − 2^(−Δt/LatencyHalfLife), so the average
	// follows a deployment at the same pace whatever its traffic, and the
	// first sample after a long pause nearly replaces it. A deployment
	// whose last sample is older than latencyStale half-lives counts as
	// unmeasured again, so the latency strategy probes it anew. Default 30s.
	LatencyHalfLife time.Duration
}

// Defaults of Config.
const (
	DefaultCooldown           = 30 * time.Second
	DefaultAllowedFails       = 3
	DefaultBudgetRatio        = 0.2
	DefaultBudgetWindow       = 10 * time.Second
	DefaultBudgetMinPerSecond = 1.0
	DefaultLatencyHalfLife    = 30 * time.Second
)

const (
	// maxBudgetWindow bounds the buckets a model's budget keeps.
	maxBudgetWindow = 5 * time.Minute
	// latencyStale is the age, in half-lives, after which a latency sample
	// no longer counts.
	latencyStale = 10
	// maxRetryAfterCooldowns and maxRetryAfter cap the cooldown an
	// upstream Retry-After asks for: min(10 × Cooldown, 1h). A longer
	// wait is probed again at the cap; a still limited upstream answers
	// with a new Retry-After and the deployment cools again.
	maxRetryAfterCooldowns = 10
	maxRetryAfter          = time.Hour
)

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.Cooldown <= 0 {
		c.Cooldown = DefaultCooldown
	}
	if c.AllowedFails == 0 {
		c.AllowedFails = DefaultAllowedFails
	}
	c.BudgetRatio = orDefault(c.BudgetRatio, DefaultBudgetRatio)
	c.BudgetMinPerSecond = orDefault(c.BudgetMinPerSecond, DefaultBudgetMinPerSecond)
	if c.BudgetWindow <= 0 {
		c.BudgetWindow = DefaultBudgetWindow
	}
	c.BudgetWindow = min(max(c.BudgetWindow.Round(time.Second), time.Second), maxBudgetWindow)
	if c.LatencyHalfLife <= 0 {
		c.LatencyHalfLife = DefaultLatencyHalfLife
	}
	return c
}

// orDefault returns def for 0, 0 for a negative v, else v.
func orDefault(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// maxCooldown returns the longest cooldown a Retry-After may ask for.
func (c *Config) maxCooldown() time.Duration {
	return min(maxRetryAfterCooldowns*c.Cooldown, maxRetryAfter)
}

// Tracker keeps the health of deployments, by key, and the retry budget of
// models, by ID. It is safe for concurrent use; Order, Begin and Success
// take no lock shared between deployments.
type Tracker struct {
	now    func() time.Time
	cfg    atomic.Pointer[Config] // with defaults applied
	shared atomic.Pointer[sharedRef]

	keys   sync.Map // deployment key → *entry
	models sync.Map // model ID → *budget
}

// sharedRef boxes a Shared for an atomic.Pointer.
type sharedRef struct{ s Shared }

// New returns a Tracker with cfg; now is its clock (time.Now when nil).
func New(cfg Config, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	t := &Tracker{now: now}
	t.SetConfig(cfg)
	return t
}

// SetConfig replaces the configuration, for a reload: failures, cooldowns
// in force, latencies and budgets are kept.
func (t *Tracker) SetConfig(cfg Config) {
	c := cfg.withDefaults()
	t.cfg.Store(&c)
}

func (t *Tracker) config() *Config { return t.cfg.Load() }

// Share makes t count failures and spread cooldowns through s, and apply
// the cooldowns other replicas decide. Call it before use; nil keeps t
// local.
func (t *Tracker) Share(s Shared) {
	if s == nil {
		t.shared.Store(nil)
		return
	}
	t.shared.Store(&sharedRef{s})
	s.Attach(t.sharedFailures, t.applyCooldown)
}

// sharedBackend returns the Shared backend, or nil.
func (t *Tracker) sharedBackend() Shared {
	if r := t.shared.Load(); r != nil {
		return r.s
	}
	return nil
}

// lookup returns key's entry, or nil when t has never heard of key.
func (t *Tracker) lookup(key string) *entry {
	if v, ok := t.keys.Load(key); ok {
		return v.(*entry)
	}
	return nil
}

// entry returns key's entry, made on first use.
func (t *Tracker) entry(key string) *entry {
	if e := t.lookup(key); e != nil {
		return e
	}
	v, _ := t.keys.LoadOrStore(key, newEntry(key))
	return v.(*entry)
}

// seenKeys returns every key t has an entry for, sorted.
func (t *Tracker) seenKeys() []string {
	var keys []string
	t.keys.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	sort.Strings(keys)
	return keys
}
