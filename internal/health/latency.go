package health

import (
	"math"
	"time"
)

// Success records a call that answered, with its time to first byte for
// the latency strategy (ttfb ≤ 0 records none). It does not end a
// cooldown in force: a call let through before it began says little.
func (t *Tracker) Success(key string, ttfb time.Duration) {
	if ttfb <= 0 {
		return
	}
	cfg := t.config()
	e := t.entry(key)
	now := t.now().UnixNano()
	e.mu.Lock()
	defer e.mu.Unlock()
	avg := float64(ttfb)
	if e.latency(now, cfg) != 0 {
		last := e.sampled.Load()
		if now <= last {
			// The clock did not move (or a concurrent sample was taken
			// later): the new sample weighs nothing.
			return
		}
		// w = 2^(−Δt/h): the weight left to the old average.
		w := math.Exp2(-float64(now-last) / float64(cfg.LatencyHalfLife))
		avg = w*float64(e.ewma.Load()) + (1-w)*avg
	}
	e.ewma.Store(max(int64(math.Round(avg)), 1))
	e.sampled.Store(now)
}

// latency returns e's average time to first byte, or 0 when it has no
// sample younger than latencyStale half-lives.
func (e *entry) latency(now int64, cfg *Config) int64 {
	last := e.sampled.Load()
	if last == 0 || now-last > latencyStale*int64(cfg.LatencyHalfLife) {
		return 0
	}
	return e.ewma.Load()
}
