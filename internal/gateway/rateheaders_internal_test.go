package gateway

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/limits"
)

func TestSetRateHeaders(t *testing.T) {
	rpm := limits.Decision{Limit: 60, Remaining: 59, ResetAfter: 1500 * time.Millisecond}
	tpm := limits.Decision{Limit: 1_000_000_000, Remaining: 999_999_000, ResetAfter: 20*time.Millisecond + 1}
	tests := []struct {
		name string
		out  limits.Outcome
		want http.Header
	}{
		{"none", limits.Outcome{}, http.Header{}},
		{"requests", limits.Outcome{Requests: rpm, HasRequests: true}, http.Header{
			"X-Ratelimit-Limit-Requests": {"60"}, "X-Ratelimit-Remaining-Requests": {"59"}, "X-Ratelimit-Reset-Requests": {"1.5s"},
		}},
		{"tokens", limits.Outcome{Tokens: tpm, HasTokens: true}, http.Header{
			"X-Ratelimit-Limit-Tokens": {"1000000000"}, "X-Ratelimit-Remaining-Tokens": {"999999000"}, "X-Ratelimit-Reset-Tokens": {"21ms"},
		}},
		{"both", limits.Outcome{Requests: rpm, HasRequests: true, Tokens: limits.Decision{Limit: 10}, HasTokens: true}, http.Header{
			"X-Ratelimit-Limit-Requests": {"60"}, "X-Ratelimit-Remaining-Requests": {"59"}, "X-Ratelimit-Reset-Requests": {"1.5s"},
			"X-Ratelimit-Limit-Tokens": {"10"}, "X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"0s"},
		}},
		{"minutes", limits.Outcome{Requests: limits.Decision{Limit: 1, ResetAfter: 6 * time.Minute}, HasRequests: true}, http.Header{
			"X-Ratelimit-Limit-Requests": {"1"}, "X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"6m0s"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			var vals [6]string
			if n := testing.AllocsPerRun(1, func() { setRateHeaders(h, tt.out, &vals) }); n > 1 {
				t.Errorf("setRateHeaders: %v allocations, want at most 1, the texts'", n)
			}
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
