package gateway

import (
	"testing"
	"time"
)

// Zero knobs take the defaults; negative retries turn retrying off (the
// configuration's `retries: 0`).
func TestRoutingDefaults(t *testing.T) {
	tests := []struct {
		in, want Routing
	}{
		{Routing{}, Routing{Retries: 2, BackoffBase: 100 * time.Millisecond, BackoffMax: 2 * time.Second, MaxRetryAfter: 5 * time.Second}},
		{Routing{Retries: -1}, Routing{Retries: 0, BackoffBase: 100 * time.Millisecond, BackoffMax: 2 * time.Second, MaxRetryAfter: 5 * time.Second}},
		{Routing{Retries: 5, BackoffBase: time.Millisecond, BackoffMax: time.Second, MaxRetryAfter: time.Minute},
			Routing{Retries: 5, BackoffBase: time.Millisecond, BackoffMax: time.Second, MaxRetryAfter: time.Minute}},
	}
	for _, tt := range tests {
		got := tt.in
		got.defaults()
		if got != tt.want {
			t.Errorf("%+v.defaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
