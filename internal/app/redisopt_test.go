package app

import (
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
)

// TestRedisCallBound: every wait takes redis.timeout unless the URL sets
// it, and a URL's longer waits are not cut short by the per-command bound
// (a test that needs exact shared counts on a loaded machine asks for 5 s
// reads and got 250 ms in all).
func TestRedisCallBound(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want time.Duration
	}{
		{"redis://127.0.0.1:6379/0", 250 * time.Millisecond},
		{"redis://127.0.0.1:6379/0?read_timeout=5s", 5 * time.Second},
		{"redis://127.0.0.1:6379/0?dial_timeout=5s&pool_timeout=2s", 5 * time.Second},
		{"redis://127.0.0.1:6379/0?read_timeout=100ms", 250 * time.Millisecond},
	} {
		t.Run(tt.url, func(t *testing.T) {
			cfg := config.Redis{URL: tt.url, Timeout: 250 * time.Millisecond}
			opt, err := redisOptions(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := callBound(cfg.Timeout, opt); got != tt.want {
				t.Errorf("callBound = %v, want %v", got, tt.want)
			}
			if opt.ReadTimeout <= 0 || opt.DialTimeout <= 0 || opt.PoolTimeout <= 0 {
				t.Errorf("a wait without a bound: %+v", opt)
			}
		})
	}
}
