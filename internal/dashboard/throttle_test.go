package dashboard

import (
	"fmt"
	"testing"
	"time"
)

func TestThrottle(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	th := newThrottle(3, 15*time.Minute, 100)
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
	if got := th.take("b@example.com", t0.Add(2*time.Minute)); got != 0 {
		t.Errorf("another key waits %v, want 0", got)
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
// fail, and that expired keys are dropped first.
func TestThrottleBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	th := newThrottle(2, time.Minute, 10)
	for i := range 5 {
		th.take(fmt.Sprint("old", i), t0)
	}
	later := t0.Add(2 * time.Minute)
	for i := range 1000 {
		th.take(fmt.Sprint("new", i), later)
		if n := len(th.fails); n > 10 {
			t.Fatalf("%d keys remembered, want at most 10", n)
		}
	}
	for i := range 5 {
		if _, ok := th.fails[fmt.Sprint("old", i)]; ok {
			t.Errorf("expired key old%d still remembered", i)
		}
	}
}

func TestClientAddr(t *testing.T) {
	tests := []struct{ remote, want string }{
		{"192.0.2.7:51234", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.7]:80", "192.0.2.7"},
		{"not an address", "not an address"},
	}
	for _, tt := range tests {
		if got := clientAddr(tt.remote); got != tt.want {
			t.Errorf("clientAddr(%q) = %q, want %q", tt.remote, got, tt.want)
		}
	}
}
