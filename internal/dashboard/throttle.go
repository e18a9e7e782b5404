package dashboard

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// throttle counts failed attempts per key (an email, a client address)
// in a sliding window and refuses a key that reached its limit. It lives
// in process memory: each replica counts for itself.
type throttle struct {
	limit  int
	window time.Duration
	max    int // keys remembered at most

	mu sync.Mutex
	// mu guards the following.
	fails map[string][]time.Time // attempt times, oldest first; at most limit
}

func newThrottle(limit int, window time.Duration, max int) *throttle {
	return &throttle{limit: limit, window: window, max: max, fails: map[string][]time.Time{}}
}

// take counts an attempt of key at now and returns 0, or, when key has
// reached its limit, counts nothing and returns how long it must wait.
// Attempts are counted before they are checked, so that a burst of
// concurrent ones cannot pass the limit; forgive removes one that
// succeeded.
func (t *throttle) take(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recentLocked(key, now)
	if len(fs) >= t.limit {
		return fs[len(fs)-t.limit].Add(t.window).Sub(now)
	}
	if fs == nil && len(t.fails) >= t.max {
		t.sweepLocked(now)
	}
	t.fails[key] = append(fs, now)
	return 0
}

// forgive removes key's latest attempt.
func (t *throttle) forgive(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if fs := t.fails[key]; len(fs) > 1 {
		t.fails[key] = fs[:len(fs)-1]
	} else {
		delete(t.fails, key)
	}
}

// reset forgets key's attempts.
func (t *throttle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.fails, key)
}

// recentLocked drops key's attempts older than the window and returns
// the rest.
func (t *throttle) recentLocked(key string, now time.Time) []time.Time {
	fs := t.fails[key]
	i := 0
	for i < len(fs) && !fs[i].After(now.Add(-t.window)) {
		i++
	}
	if i == len(fs) {
		delete(t.fails, key)
		return nil
	}
	t.fails[key] = fs[i:]
	return fs[i:]
}

// sweepLocked makes room for a new key: it drops expired keys and, if
// that is not enough, arbitrary ones (map order), so that memory stays
// bounded whatever an attacker sends.
func (t *throttle) sweepLocked(now time.Time) {
	for k := range t.fails {
		t.recentLocked(k, now)
	}
	for k := range t.fails {
		if len(t.fails) < t.max {
			break
		}
		delete(t.fails, k)
	}
}

// clientAddr returns the key of a request's client address: the IP, or
// for IPv6 its /64, which one client usually holds whole. Forwarding
// headers are not trusted: behind a proxy every client shares its address,
// which is why the per-address limit is the looser one.
func clientAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
