package api

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
)

// The gateway's typed errors reach the client in OpenAI's shapes, mapped
// in one place (issue 15).
func TestErrorFor(t *testing.T) {
	tests := []struct {
		err        error
		want       wantErr
		retryAfter int
		msg        string
	}{
		{&gateway.ContextTooLong{Param: "messages", Window: 100, Tokens: 101},
			wantErr{400, "invalid_request_error", "messages", "context_length_exceeded"}, 0,
			"This model's maximum context length is 100 tokens. However, your messages resulted in at least 101 tokens. Please reduce the length of the messages."},
		{&gateway.NoDeployment{Model: "m", RetryAfter: 2500 * time.Millisecond, RateLimited: true},
			wantErr{429, "rate_limit_error", "", ""}, 3, "rate-limiting requests. Try again in 3s."},
		{&gateway.NoDeployment{Model: "m", RetryAfter: 20 * time.Second},
			wantErr{503, "server_error", "", ""}, 20, "cooling down after failures. Try again in 20s."},
		{&gateway.NoDeployment{Model: "m"}, wantErr{503, "server_error", "", ""}, 1, "Try again in 1s."},
		{fmt.Errorf("%w: redis down", gateway.ErrBudgetUnavailable), wantErr{503, "server_error", "", ""}, 1, "Spend limits cannot be checked"},
		{fmt.Errorf("%w: redis down", gateway.ErrRatesUnavailable), wantErr{503, "server_error", "", ""}, 1, "Rate limits cannot be checked"},
		// A token estimate past int64 (max_tokens 2^63-1) is capped, not
		// wrapped: too large for the limit, like any other.
		{&gateway.RateLimited{Refusal: &limits.Refusal{Kind: "tokens", Scope: "key", ID: "k1", TooLarge: true, Cost: math.MaxInt64,
			Decision: limits.Decision{Limit: 100000, Remaining: 100000}}},
			wantErr{429, "rate_limit_error", "", ""}, 0,
			"Request too large for tokens per minute on key k1: limit 100000, requested 9223372036854775807. Reduce the prompt or max_tokens; retrying will not help."},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			e := errorFor(httptest.NewRequest("POST", "/v1/chat/completions", nil), http.Header{}, tt.err)
			got := wantErr{e.Status, e.Type, e.Param, e.Code}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if e.RetryAfter != tt.retryAfter || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("Retry-After %d, message %q; want %d, %q", e.RetryAfter, e.Message, tt.retryAfter, tt.msg)
			}
		})
	}
}
