package limits

import (
	"context"
	"strconv"
	"time"
)

// Subject is who a request counts against, with the limits that apply
// (already resolved from overrides and defaults); 0 is unlimited.
type Subject struct {
	AccountID, KeyID       string
	AccountRPM, AccountTPM int64
	KeyRPM, KeyTPM         int64
}

// Refusal says which limit refused a request.
type Refusal struct {
	Kind  string // "requests" or "tokens"
	Scope string // "key" or "account"
	ID    string // the key's or the account's ID
	Decision
	// TooLarge reports a token cost above the limit itself: waiting
	// cannot help.
	TooLarge bool
	Cost     int64
}

// Outcome is the result of Reserve: the binding decision for requests
// and for tokens (the one with the least remaining), for the
// x-ratelimit-* headers, and the refusal if any.
type Outcome struct {
	Requests, Tokens Decision
	// HasRequests and HasTokens report whether an RPM or a TPM limit
	// applies (else the decision is zero).
	HasRequests, HasTokens bool
	Refused                *Refusal
}

// Rates enforces requests and tokens per minute, per key and per account,
// on a Limiter. A request must pass all four; the units taken for the
// limits it passed are given back when a later one refuses it.
type Rates struct {
	lim Limiter
}

// NewRates returns Rates over lim.
func NewRates(lim Limiter) *Rates { return &Rates{lim: lim} }

// check is one bucket a request must pass.
type check struct {
	kind, scope, id string
	limit, cost     int64
}

// appendBucket appends the name of the check's bucket. The limit is part
// of the name: a bucket holds time owed at its own rate, so a changed
// limit starts a fresh bucket instead of reading the old one at the new
// rate.
func (c check) appendBucket(b []byte) []byte {
	b = append(b, c.kind[0], ':', c.scope[0], ':')
	b = append(b, c.id...)
	b = append(b, ':')
	return strconv.AppendInt(b, c.limit, 10)
}

// buckets names the buckets of the checks that apply (a positive limit),
// with one allocation for all the names instead of two for each: a
// limited request names up to six buckets, in Reserve and Settle
// (issue 18).
func buckets(cs []check) [4]string {
	var buf [4 * 48]byte
	b, ends := buf[:0], [4]int{}
	for i, c := range cs {
		if c.limit > 0 {
			b = c.appendBucket(b)
		}
		ends[i] = len(b)
	}
	all := string(b)
	var names [4]string
	start := 0
	for i := range cs {
		names[i], start = all[start:ends[i]], ends[i]
	}
	return names
}

func (c check) rate() Rate { return Rate{Limit: c.limit, Period: time.Minute} }

// checks are a request's four checks, in Reserve's order: one request
// and tokens, from the key's and the account's buckets.
func (s Subject) checks(tokens int64) [4]check {
	return [4]check{
		{"requests", "key", s.KeyID, s.KeyRPM, 1},
		{"requests", "account", s.AccountID, s.AccountRPM, 1},
		{"tokens", "key", s.KeyID, s.KeyTPM, tokens},
		{"tokens", "account", s.AccountID, s.AccountTPM, tokens},
	}
}

// Reserve takes one request and tokens (the request's estimated prompt
// plus its output allowance) from the subject's buckets, or refuses.
func (r *Rates) Reserve(ctx context.Context, s Subject, tokens int64) (Outcome, error) {
	checks := s.checks(tokens)
	names := buckets(checks[:])
	var out Outcome
	var reqDec, tokDec [2]Decision
	for i, c := range checks {
		if c.limit <= 0 {
			continue
		}
		d, err := r.lim.Take(ctx, names[i], c.rate(), c.cost)
		if err != nil {
			r.giveBack(ctx, checks[:i], names[:i])
			return Outcome{}, err
		}
		if !d.Allowed {
			r.giveBack(ctx, checks[:i], names[:i])
			out.Refused = &Refusal{Kind: c.kind, Scope: c.scope, ID: c.id, Decision: d, TooLarge: c.cost > c.limit, Cost: c.cost}
			return out, nil
		}
		if i < 2 {
			reqDec[i] = d
		} else {
			tokDec[i-2] = d
		}
	}
	out.Requests, out.HasRequests = binding(reqDec, checks[0].limit, checks[1].limit)
	out.Tokens, out.HasTokens = binding(tokDec, checks[2].limit, checks[3].limit)
	return out, nil
}

// binding returns the decision of the two with the least remaining, and
// whether either limit applies.
func binding(d [2]Decision, keyLimit, acctLimit int64) (Decision, bool) {
	switch {
	case keyLimit <= 0 && acctLimit <= 0:
		return Decision{}, false
	case keyLimit <= 0:
		return d[1], true
	case acctLimit <= 0 || d[0].Remaining <= d[1].Remaining:
		return d[0], true
	}
	return d[1], true
}

// giveBack returns what the passed checks, of the buckets named, took.
func (r *Rates) giveBack(ctx context.Context, passed []check, names []string) {
	for i, c := range passed {
		if c.limit > 0 {
			r.lim.Adjust(ctx, names[i], c.rate(), -c.cost)
		}
	}
}

// Refund gives back all that Reserve took for a request that failed by
// the gateway's own fault: the request and its reserved tokens.
func (r *Rates) Refund(ctx context.Context, s Subject, reserved int64) error {
	checks := s.checks(reserved)
	names := buckets(checks[:])
	for i, c := range checks {
		if c.limit <= 0 {
			continue
		}
		if err := r.lim.Adjust(ctx, names[i], c.rate(), -c.cost); err != nil {
			return err
		}
	}
	return nil
}

// Settle corrects a token reservation to the tokens really used, so that
// a burst of short answers is not charged for a large max_tokens.
func (r *Rates) Settle(ctx context.Context, s Subject, reserved, used int64) error {
	delta := used - reserved
	if delta == 0 {
		return nil
	}
	checks := [2]check{{"tokens", "key", s.KeyID, s.KeyTPM, 0}, {"tokens", "account", s.AccountID, s.AccountTPM, 0}}
	names := buckets(checks[:])
	for i, c := range checks {
		if c.limit <= 0 {
			continue
		}
		if err := r.lim.Adjust(ctx, names[i], c.rate(), delta); err != nil {
			return err
		}
	}
	return nil
}

// Use is how much of each rate limit of a subject is taken now: units
// charged within the last minute and not yet returned. Each is 0 where
// no limit applies.
type Use struct {
	KeyRequests, AccountRequests int64
	KeyTokens, AccountTokens     int64
}

// Current reports the subject's use of its limits without taking
// anything; only the buckets of limits that apply are read.
func (r *Rates) Current(ctx context.Context, s Subject) (Use, error) {
	var u Use
	checks := s.checks(0)
	names := buckets(checks[:])
	for i, out := range [4]*int64{&u.KeyRequests, &u.AccountRequests, &u.KeyTokens, &u.AccountTokens} {
		c := checks[i]
		if c.limit <= 0 {
			continue
		}
		d, err := r.lim.Take(ctx, names[i], c.rate(), 0)
		if err != nil {
			return Use{}, err
		}
		*out = d.Limit - d.Remaining
	}
	return u, nil
}
