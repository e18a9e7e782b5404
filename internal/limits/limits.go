package limits

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MaxPeriod is the longest Period a Rate may have, and the most a bucket
// can be charged beyond full by Adjust. It keeps every quantity the Redis
// script handles below 2^53 nanoseconds, exact in Lua's doubles.
const MaxPeriod = 30 * 24 * time.Hour

// ErrInvalid reports a Rate or cost the limiter cannot apply; it is the
// caller's mistake, never a backend failure.
var ErrInvalid = errors.New("limits: invalid rate or cost")

// Rate is Limit units per Period (e.g. 60 requests per minute).
// The burst is Limit: a full period's worth may be taken at once.
// Limit must be positive and at most Period in nanoseconds; Period must be
// positive and at most MaxPeriod. Callers treat an unset limit (0) as
// unlimited by not calling the limiter at all.
type Rate struct {
	Limit  int64
	Period time.Duration
}

// Decision is the outcome of one check, with what the OpenAI-style
// x-ratelimit-* headers need.
type Decision struct {
	Allowed    bool
	Limit      int64         // the rate's limit
	Remaining  int64         // units still available now (after this request if allowed)
	ResetAfter time.Duration // until the bucket is full again
	RetryAfter time.Duration // when not allowed: until cost units fit; 0 when allowed or when cost exceeds Limit
}

// Limiter checks and takes cost units from key's bucket.
type Limiter interface {
	// Take takes cost units from key's bucket if they fit. Cost 0 only
	// reports the bucket's state.
	Take(ctx context.Context, key string, r Rate, cost int64) (Decision, error)
	// Adjust moves delta units into (delta > 0: charge more) or out of
	// (delta < 0: give back) key's bucket without a check, for correcting
	// a token reservation to real usage. Giving back never makes the
	// bucket fuller than full.
	Adjust(ctx context.Context, key string, r Rate, delta int64) error
}

// gcra is a Rate in the algorithm's terms (see the package doc).
type gcra struct {
	limit int64
	t     int64 // emission interval, ns
	tau   int64 // burst tolerance, ns: limit × t
}

func newGCRA(r Rate) (gcra, error) {
	if r.Limit <= 0 || r.Period <= 0 || r.Period > MaxPeriod || r.Limit > int64(r.Period) {
		return gcra{}, fmt.Errorf("%w: %d per %v", ErrInvalid, r.Limit, r.Period)
	}
	t := int64(r.Period) / r.Limit
	return gcra{limit: r.Limit, t: t, tau: t * r.Limit}, nil
}

// charge returns the nanoseconds that taking cost units adds; a cost
// above the limit can never fit, so it charges nothing (a report).
func (g gcra) charge(cost int64) (int64, error) {
	if cost < 0 {
		return 0, fmt.Errorf("%w: cost %d", ErrInvalid, cost)
	}
	if cost > g.limit {
		return 0, nil
	}
	return cost * g.t, nil
}

// fits reports whether a charge of inc fits a bucket owing d.
func (g gcra) fits(d, inc int64) bool { return d+inc <= g.tau }

// decision describes the bucket after a check of cost units that charged
// inc, where d is what the bucket owes now (after the charge if allowed).
func (g gcra) decision(allowed bool, d, inc, cost int64) Decision {
	rem := (g.tau - d) / g.t
	if rem < 0 {
		rem = 0
	}
	dec := Decision{Allowed: allowed, Limit: g.limit, Remaining: rem, ResetAfter: time.Duration(d)}
	if cost > g.limit {
		dec.Allowed = false
		return dec
	}
	if !allowed {
		dec.RetryAfter = time.Duration(d + inc - g.tau)
	}
	return dec
}

// delta returns the nanoseconds delta units move, clamped to ±MaxPeriod.
func (g gcra) delta(units int64) int64 {
	maxUnits := int64(MaxPeriod) / g.t
	units = max(-maxUnits, min(units, maxUnits))
	return units * g.t
}

// adjusted returns what a bucket owing d owes after moving delta ns.
func adjusted(d, delta int64) int64 {
	return max(0, min(d+delta, int64(MaxPeriod)))
}
