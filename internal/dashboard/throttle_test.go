package dashboard

import (
	"fmt"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// TestThrottleAdmit checks the delays past the limit (issue 13: they
// replace a refusal that locked the right password out), and that a
// spaced key answers its attempts one delay apart however many arrive.
func TestThrottleAdmit(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	type step struct {
		name     string
		at       time.Duration // after t0
		wantHold time.Duration
		wantOK   bool
	}
	tests := []struct {
		name   string
		spaced bool
		steps  []step
	}{
		{"sequential", true, []step{
			{"first", 0, 0, true},
			{"second", time.Minute, 0, true},
			{"third: limit reached, min delay", 2 * time.Minute, minDelay, true},
			{"fourth: doubled", 3 * time.Minute, 2 * minDelay, true},
			{"fifth", 4 * time.Minute, 4 * minDelay, true},
			{"sixth: capped", 5 * time.Minute, maxDelay, true},
			{"seventh: capped", 6 * time.Minute, maxDelay, true},
			{"three expired, four remembered", 17 * time.Minute, 4 * minDelay, true},
			{"all expired", time.Hour, 0, true},
		}},
		{"parallel, spaced", true, []step{
			{"1", 0, 0, true},
			{"2", 0, 0, true},
			{"3", 0, minDelay, true},
			{"4", 0, 2 * minDelay, true},
			{"5", 0, 4 * minDelay, true},
			{"6: capped", 0, maxDelay, true},
			{"7: one delay after 6", 0, 2 * maxDelay, true},
			{"8: after 7, past maxHold", 0, 3 * maxDelay, false},
			{"8 later, in turn", 3 * time.Second, 3*maxDelay - 3*time.Second, true},
		}},
		{"parallel, not spaced", false, []step{
			{"1", 0, 0, true},
			{"2", 0, 0, true},
			{"3", 0, minDelay, true},
			{"4", 0, 2 * minDelay, true},
			{"5", 0, 4 * minDelay, true},
			{"6", 0, maxDelay, true},
			{"7", 0, maxDelay, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := newThrottle(2, 15*time.Minute, 100, tt.spaced)
			for _, st := range tt.steps {
				hold, ok := th.admit("a@example.com", t0.Add(st.at))
				if hold != st.wantHold || ok != st.wantOK {
					t.Errorf("%s: hold %v, %v; want %v, %v", st.name, hold, ok, st.wantHold, st.wantOK)
				}
			}
			if hold, ok := th.admit("b@example.com", t0); hold != 0 || !ok {
				t.Errorf("another key: hold %v, %v; want 0, true", hold, ok)
			}
		})
	}
}

// TestThrottleTake checks the hard limit of sign-ups.
func TestThrottleTake(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	th := newThrottle(3, 15*time.Minute, 100, false)
	steps := []struct {
		name     string
		at       time.Duration // after t0
		wantWait time.Duration
	}{
		{"first", 0, 0},
		{"second", time.Minute, 0},
		{"third", 2 * time.Minute, 0},
		{"fourth: blocked until the first expires", 3 * time.Minute, 12 * time.Minute},
		{"still blocked, not counted", 10 * time.Minute, 5 * time.Minute},
		{"first expired", 15*time.Minute + time.Second, 0},
		{"blocked until the second expires", 15*time.Minute + time.Second, time.Minute - time.Second},
		{"all expired", time.Hour, 0},
	}
	for _, st := range steps {
		if got := th.take("a@example.com", t0.Add(st.at)); got != st.wantWait {
			t.Errorf("%s: wait %v, want %v", st.name, got, st.wantWait)
		}
	}
	for range 3 {
		th.take("c", t0)
	}
	th.forgive("c")
	if got := th.take("c", t0); got != 0 {
		t.Errorf("after forgiving one: wait %v, want 0", got)
	}
	if got := th.take("c", t0); got == 0 {
		t.Error("past the limit again: not blocked")
	}
	th.reset("c")
	if got := th.take("c", t0); got != 0 {
		t.Errorf("after reset: wait %v, want 0", got)
	}
}

// TestThrottleBounded checks that memory stays bounded however many keys
// fail, however often, and that expired keys are dropped first.
func TestThrottleBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	th := newThrottle(2, time.Minute, 10, true)
	for i := range 5 {
		th.admit(fmt.Sprint("old", i), t0)
	}
	for range 1000 {
		th.admit("hammered", t0)
	}
	if n := len(th.keys["hammered"].times); n > 2+doublings {
		t.Errorf("%d attempts of one key remembered, want at most %d", n, 2+doublings)
	}
	later := t0.Add(2 * time.Minute)
	for i := range 1000 {
		th.admit(fmt.Sprint("new", i), later)
		if n := len(th.keys); n > 10 {
			t.Fatalf("%d keys remembered, want at most 10", n)
		}
	}
	for i := range 5 {
		if _, ok := th.keys[fmt.Sprint("old", i)]; ok {
			t.Errorf("expired key old%d still remembered", i)
		}
	}
}

func TestClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("2001:db8:ff::/48")}
	tests := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"v4", "192.0.2.7:51234", nil, nil, "192.0.2.7"},
		{"v6 per /64", "[2001:db8:1:2:3:4:5:6]:443", nil, nil, "2001:db8:1:2::/64"},
		{"v6 same /64", "[2001:db8:1:2:ffff::1]:443", nil, nil, "2001:db8:1:2::/64"},
		{"mapped", "[::ffff:192.0.2.7]:80", nil, nil, "192.0.2.7"},
		{"not an address", "not an address", nil, nil, "not an address"},
		{"no trusted proxies: header ignored", "10.0.0.1:80", []string{"198.51.100.1"}, nil, "10.0.0.1"},
		{"untrusted peer: header ignored", "192.0.2.7:80", []string{"198.51.100.1"}, proxies, "192.0.2.7"},
		{"trusted peer", "10.0.0.1:80", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"trusted peer, no header", "10.0.0.1:80", nil, proxies, "10.0.0.1"},
		{"spoofed hop left of the client", "10.0.0.1:80", []string{"203.0.113.9, 198.51.100.1"}, proxies, "198.51.100.1"},
		{"two trusted hops", "10.0.0.1:80", []string{"203.0.113.9, 198.51.100.1, 10.0.0.2"}, proxies, "198.51.100.1"},
		{"several header lines", "10.0.0.1:80", []string{"203.0.113.9", "198.51.100.1", "10.0.0.2"}, proxies, "198.51.100.1"},
		{"all hops trusted", "10.0.0.1:80", []string{"10.0.0.3, 10.0.0.2"}, proxies, "10.0.0.3"},
		{"garbage stops the walk", "10.0.0.1:80", []string{"198.51.100.1, junk, 10.0.0.2"}, proxies, "10.0.0.2"},
		{"v6 client via v6 proxy", "[2001:db8:ff::1]:80", []string{"2001:db8:5:6::7"}, proxies, "2001:db8:5:6::/64"},
		{"hop with a port", "10.0.0.1:80", []string{"[2001:db8:5:6::7]:4711"}, proxies, "2001:db8:5:6::/64"},
		{"mapped proxy", "[::ffff:10.0.0.1]:80", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{"X-Forwarded-For": tt.xff}}
			if got := clientAddr(r, tt.trusted); got != tt.want {
				t.Errorf("clientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}
