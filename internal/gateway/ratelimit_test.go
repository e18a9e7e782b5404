package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/provider/mock"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// A request whose token estimate overflows int64 (max_tokens up to 2^63-1
// is valid) is refused as too large for the TPM limit, as any request
// over the limit is: before, the sum wrapped negative (the limiter
// refused the cost: "rate limits cannot be checked", logged as an error)
// or to a small number (the request passed).
func TestReserveOverflow(t *testing.T) {
	const tpm = 100_000
	prompts := make([]string, 2048)
	for i := range prompts {
		prompts[i] = "p" + strconv.Itoa(i)
	}
	manyPrompts := `["` + strings.Join(prompts, `","`) + `"]`
	tests := []struct {
		name     string
		endpoint provider.Endpoint
		model    string
		body     string
		prompts  []string
		sizes    gateway.Sizes
		refused  bool
	}{
		// prompt + 1 × (2^63-1): wraps negative.
		{"max_tokens 2^63-1", provider.EndpointChat, "mock-chat", `{"max_tokens":9223372036854775807}`, nil,
			gateway.Sizes{Read: true, MaxTokens: math.MaxInt64, N: 1}, true},
		// 4 × 2^62 = 2^64: wraps to 0, the prompt alone.
		{"n × max_tokens wraps to 0", provider.EndpointChat, "mock-chat", `{"max_tokens":4611686018427387904,"n":4}`, nil,
			gateway.Sizes{Read: true, MaxTokens: 1 << 62, N: 4}, true},
		// 128 × 2^56 = 2^63: wraps to -2^63.
		{"n 128", provider.EndpointChat, "mock-chat", `{"max_completion_tokens":72057594037927936,"n":128}`, nil,
			gateway.Sizes{Read: true, MaxCompletionTokens: 1 << 56, N: 128}, true},
		// 2048 prompts × 128 × (2^45+1) = 2^63 + 2^18: wraps negative.
		{"completion 2048 prompts negative", provider.EndpointCompletion, "mock-instruct",
			`{"prompt":` + manyPrompts + `,"n":128,"max_tokens":35184372088833}`, prompts,
			gateway.Sizes{Read: true, MaxTokens: 1<<45 + 1, N: 128, Prompts: 2048}, true},
		// 2048 prompts × 128 × 2^46 = 2^64: wraps to 0.
		{"completion 2048 prompts wraps to 0", provider.EndpointCompletion, "mock-instruct",
			`{"prompt":` + manyPrompts + `,"n":128,"max_tokens":70368744177664}`, prompts,
			gateway.Sizes{Read: true, MaxTokens: 1 << 46, N: 128, Prompts: 2048}, true},
		{"within the limit", provider.EndpointChat, "mock-chat", `{"max_tokens":100,"n":2}`, nil,
			gateway.Sizes{Read: true, MaxTokens: 100, N: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			g := limitedGateway(t, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError})))
			req := &gateway.Request{Endpoint: tt.endpoint, Model: tt.model, Body: []byte(tt.body), Prompts: tt.prompts,
				Sizes: tt.sizes, Access: &server.Record{ID: "req-1", Start: today},
				Principal: auth.Principal{KeyID: "k1", AccountID: "a1", KeyLimits: auth.Limits{TPM: tpm}}}
			a := newAnswer()
			g.Serve(context.Background(), req, a)
			if logs.Len() > 0 {
				t.Errorf("errors logged: %s", logs.String())
			}
			if !tt.refused {
				if a.err != nil {
					t.Fatalf("refused: %v", a.err)
				}
				return
			}
			var rl *gateway.RateLimited
			if !errors.As(a.err, &rl) {
				t.Fatalf("error %v, want a *RateLimited", a.err)
			}
			if rf := rl.Refusal; !rf.TooLarge || rf.Kind != "tokens" || rf.Scope != "key" || rf.Limit != tpm || rf.Cost != math.MaxInt64 {
				t.Errorf("refusal %+v, want tokens of key k1 too large, limit %d, cost 2^63-1", rf, tpm)
			}
		})
	}
}

// limitedGateway is a gateway over the mock provider with rate limits
// in memory.
func limitedGateway(t *testing.T, log *slog.Logger) *gateway.Gateway {
	t.Helper()
	cat, err := catalog.Builtin()
	if err == nil {
		cat, err = cat.With(mock.Models)
	}
	if err != nil {
		t.Fatal(err)
	}
	routes := route.New(cat, []provider.Provider{mock.New("mock")}, func() time.Time { return today })
	return gateway.New(routes, gateway.Options{Rates: limits.NewRates(limits.NewMemory(nil)), Log: log})
}
