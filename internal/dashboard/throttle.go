package dashboard

import (
	"sync"
	"time"
)

// Delays of the sign-in throttle (issue 13): past its limit, an attempt
// of a key is held before it is checked, for minDelay doubled with each
// further recent failure, up to maxDelay. An attempt that would be held
// longer than maxHold (attempts of one email queue behind each other) is
// refused instead, so that no request is held for long.
const (
	minDelay = 500 * time.Millisecond
	maxDelay = 4 * time.Second
	maxHold  = 10 * time.Second
)

// throttle counts failed attempts per key (an email, a client address)
// in a sliding window. Below its limit an attempt goes through at once;
// past it the attempt is delayed (see admit), so that guessing slows down
// while the right password still gets in. It lives in process memory:
// each replica counts for itself.
type throttle struct {
	limit  int
	window time.Duration
	max    int // keys remembered at most
	// spaced answers the delayed attempts of one key at least their delay
	// apart, so that parallel guesses at one email gain nothing.
	spaced bool

	mu sync.Mutex
	// mu guards the following.
	keys map[string]*attempts
}

// attempts are one key's recent attempts.
type attempts struct {
	times []time.Time // oldest first; at most limit+doublings
	next  time.Time   // earliest answer of a spaced key's next delayed attempt
}

// doublings is how many failures past the limit take the delay from
// minDelay to maxDelay; more are not remembered.
const doublings = 3

func newThrottle(limit int, window time.Duration, max int, spaced bool) *throttle {
	return &throttle{limit: limit, window: window, max: max, spaced: spaced, keys: map[string]*attempts{}}
}

// admit counts an attempt of key at now and returns how long to hold it
// before checking it: 0 below the limit, else the delay, or for a spaced
// key the time until its turn. When that exceeds maxHold it counts nothing
// and reports false; the wait is then when to try again. Attempts are
// counted before they are checked, so that a burst of concurrent ones
// cannot pass the limit; reset or forgive remove one that succeeded.
func (t *throttle) admit(key string, now time.Time) (hold time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.recentLocked(key, now)
	if n := len(a.times); n >= t.limit {
		hold = min(minDelay<<(n-t.limit), maxDelay)
		at := now.Add(hold)
		if t.spaced && a.next.After(at) {
			at = a.next
		}
		if at.Sub(now) > maxHold {
			return at.Sub(now), false
		}
		hold, a.next = at.Sub(now), at.Add(hold)
	}
	if len(a.times) >= t.limit+doublings {
		a.times = a.times[1:]
	}
	a.times = append(a.times, now)
	return hold, true
}

// take counts an attempt of key at now and returns 0, or, when key has
// reached its limit, counts nothing and returns how long it must wait:
// a hard limit, for sign-ups.
func (t *throttle) take(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.recentLocked(key, now)
	if n := len(a.times); n >= t.limit {
		return a.times[n-t.limit].Add(t.window).Sub(now)
	}
	a.times = append(a.times, now)
	return 0
}

// forgive removes key's latest attempt.
func (t *throttle) forgive(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.keys[key]; a != nil && len(a.times) > 1 {
		a.times = a.times[:len(a.times)-1]
	} else {
		delete(t.keys, key)
	}
}

// reset forgets key's attempts.
func (t *throttle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.keys, key)
}

// recentLocked drops key's attempts older than the window and returns
// the rest, remembering key (making room for it) if it was not.
func (t *throttle) recentLocked(key string, now time.Time) *attempts {
	a := t.keys[key]
	if a == nil {
		if len(t.keys) >= t.max {
			t.sweepLocked(now)
		}
		a = &attempts{}
		t.keys[key] = a
		return a
	}
	i := 0
	for i < len(a.times) && !a.times[i].After(now.Add(-t.window)) {
		i++
	}
	a.times = a.times[i:]
	return a
}

// sweepLocked makes room for a new key: it drops keys with no recent
// attempt and, if that is not enough, arbitrary ones (map order), so that
// memory stays bounded whatever an attacker sends.
func (t *throttle) sweepLocked(now time.Time) {
	for k, a := range t.keys {
		if len(a.times) == 0 || !a.times[len(a.times)-1].After(now.Add(-t.window)) {
			delete(t.keys, k)
		}
	}
	for k := range t.keys {
		if len(t.keys) < t.max {
			break
		}
		delete(t.keys, k)
	}
}
