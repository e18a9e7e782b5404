package config

import (
	"fmt"
	"time"
)

// Routing configures how a request finds an answer when upstreams fail:
// retries across a model's deployments, cooldowns of failing deployments,
// and the budget that keeps retries from multiplying an outage's load.
// It can change while serving (SIGHUP).
type Routing struct {
	// Retries is how many more attempts a model may have after its first,
	// across its deployments: the requested model and each fallback get
	// their own; 0 to 10. Default 2.
	Retries int `yaml:"retries"`
	// Cooldown is how long a deployment that failed AllowedFails times
	// within it is skipped. Default 30s.
	Cooldown time.Duration `yaml:"cooldown"`
	// AllowedFails is how many failures within Cooldown a deployment may
	// have before it is skipped; 0 turns counting off (an upstream 429
	// with Retry-After still cools it). Default 3.
	AllowedFails int `yaml:"allowed_fails"`
	// RetryBudget bounds the retries of each model.
	RetryBudget RetryBudget `yaml:"retry_budget"`
	// Backoff is the wait before a retry.
	Backoff Backoff `yaml:"backoff"`
	// MaxRetryAfter is the longest upstream Retry-After a retry waits
	// for; a longer one sends the retry to another deployment instead.
	// Default 5s.
	MaxRetryAfter time.Duration `yaml:"max_retry_after"`
}

// RetryBudget lets retries add at most Ratio to a model's first attempts
// over a sliding Window, and always allows MinPerSecond of them, so that
// a quiet model can still retry.
type RetryBudget struct {
	// Ratio is retries per first attempt, 0 to 1. Default 0.2.
	Ratio float64 `yaml:"ratio"`
	// Window is the sliding window the attempts are counted over.
	// Default 10s.
	Window time.Duration `yaml:"window"`
	// MinPerSecond is the retries per second allowed whatever the
	// ratio; 0 or more. Default 1.
	MinPerSecond float64 `yaml:"min_per_second"`
}

// Backoff is an exponential backoff with full jitter: the wait before
// retry n is random between 0 and min(Max, Base × 2^n).
type Backoff struct {
	// Base is the first retry's longest wait. Default 100ms.
	Base time.Duration `yaml:"base"`
	// Max caps every wait; at least Base. Default 2s.
	Max time.Duration `yaml:"max"`
}

// defaultRouting returns the routing defaults.
func defaultRouting() Routing {
	return Routing{
		Retries:       2,
		Cooldown:      30 * time.Second,
		AllowedFails:  3,
		RetryBudget:   RetryBudget{Ratio: 0.2, Window: 10 * time.Second, MinPerSecond: 1},
		Backoff:       Backoff{Base: 100 * time.Millisecond, Max: 2 * time.Second},
		MaxRetryAfter: 5 * time.Second,
	}
}

// validateRouting checks the routing section.
func (c *Config) validateRouting() error {
	r := c.Routing
	checks := []struct {
		key string
		err string
	}{
		{"routing.retries", intRange(int64(r.Retries), 0, 10)},
		{"routing.cooldown", positive(r.Cooldown)},
		{"routing.allowed_fails", minInt(int64(r.AllowedFails), 0)},
		{"routing.retry_budget.ratio", floatRange(r.RetryBudget.Ratio, 0, 1)},
		{"routing.retry_budget.window", positive(r.RetryBudget.Window)},
		{"routing.retry_budget.min_per_second", floatRange(r.RetryBudget.MinPerSecond, 0, 1e6)},
		{"routing.backoff.base", positive(r.Backoff.Base)},
		{"routing.backoff.max", minDuration(r.Backoff.Max, r.Backoff.Base)},
		{"routing.max_retry_after", nonNegative(r.MaxRetryAfter)},
	}
	for _, ch := range checks {
		if ch.err != "" {
			return fmt.Errorf("%s: %s", ch.key, ch.err)
		}
	}
	return nil
}

func intRange(v, lo, hi int64) string {
	if v < lo || v > hi {
		return fmt.Sprintf("expected an integer from %d to %d, got %d", lo, hi, v)
	}
	return ""
}

func floatRange(v, lo, hi float64) string {
	if !(v >= lo && v <= hi) { // NaN fails too
		return fmt.Sprintf("expected a number from %g to %g, got %g", lo, hi, v)
	}
	return ""
}
