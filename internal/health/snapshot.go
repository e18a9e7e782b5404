package health

import (
	"cmp"
	"slices"
	"time"
)

// State is one deployment's health, for the dashboard and the CLI.
type State struct {
	Key string
	// CoolingUntil is when the cooldown in force ends; zero when the
	// deployment is not cooling down.
	CoolingUntil time.Time
	// Reason is the cooldown's: a failure class (an upstream Retry-After)
	// or ReasonFailures; "" when not cooling down.
	Reason string
	// FailuresInWindow counts this replica's failures within the last
	// Cooldown.
	FailuresInWindow int
	InFlight         int
	// LatencyEWMA is the moving average of time to first byte; 0 when
	// there is no recent sample.
	LatencyEWMA time.Duration
	// RecentErrors counts the failures within the last Cooldown by class,
	// most frequent first.
	RecentErrors []ClassCount
}

// ClassCount is how many failures of one class a deployment had.
type ClassCount struct {
	Class string
	Count int
}

// Snapshot returns the state of each deployment in keys, in that order; a
// key t never heard of is healthy. With nil keys it returns every key t
// has seen, sorted.
func (t *Tracker) Snapshot(keys []string) []State {
	if keys == nil {
		keys = t.seenKeys()
	}
	cfg := t.config()
	now := t.now().UnixNano()
	out := make([]State, 0, len(keys))
	for _, k := range keys {
		st := State{Key: k}
		if e := t.lookup(k); e != nil {
			e.stateLocking(&st, now, cfg)
		}
		out = append(out, st)
	}
	return out
}

// stateLocking fills st from e.
func (e *entry) stateLocking(st *State, now int64, cfg *Config) {
	st.InFlight = int(e.inFlight.Load())
	st.LatencyEWMA = time.Duration(e.latency(now, cfg))
	e.mu.Lock()
	defer e.mu.Unlock()
	if until := e.until.Load(); until > now {
		st.CoolingUntil, st.Reason = time.Unix(0, until), e.reason
	}
	e.trimLocked(now, cfg)
	st.FailuresInWindow = len(e.fails)
	for _, f := range e.fails {
		i := slices.IndexFunc(st.RecentErrors, func(c ClassCount) bool { return c.Class == f.class })
		if i < 0 {
			st.RecentErrors = append(st.RecentErrors, ClassCount{Class: f.class})
			i = len(st.RecentErrors) - 1
		}
		st.RecentErrors[i].Count++
	}
	slices.SortFunc(st.RecentErrors, func(a, b ClassCount) int {
		return cmp.Or(b.Count-a.Count, cmp.Compare(a.Class, b.Class))
	})
}
