package dashboard

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// throttle counts failures per key (an email, a client address) in a
// sliding window and refuses a key that reached its limit. It lives in
// process memory: each replica counts for itself.
type throttle struct {
	limit  int
	window time.Duration
	max    int // keys remembered at most

	mu sync.Mutex
	// mu guards the following.
	fails map[string][]time.Time // failure times, oldest first
}

func newThrottle(limit int, window time.Duration, max int) *throttle {
	return &throttle{limit: limit, window: window, max: max, fails: map[string][]time.Time{}}
}

// wait returns how long key must wait before it may try again; 0 when
// it may now.
func (t *throttle) wait(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recentLocked(key, now)
	if len(fs) < t.limit {
		return 0
	}
	return fs[len(fs)-t.limit].Add(t.window).Sub(now)
}

// fail counts a failure of key at now.
func (t *throttle) fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recentLocked(key, now)
	if fs == nil && len(t.fails) >= t.max {
		t.sweepLocked(now)
	}
	// Keep no more than limit failures: older ones no longer matter.
	if len(fs) >= t.limit {
		fs = fs[1:]
	}
	t.fails[key] = append(fs, now)
}

// reset forgets key's failures.
func (t *throttle) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.fails, key)
}

// recentLocked drops key's failures older than the window and returns
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
