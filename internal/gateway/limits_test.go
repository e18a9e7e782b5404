package gateway

import (
	"math"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Issue 13: a legacy completion reserved n × max_tokens whatever its
// number of prompts, though each prompt gets its own answers.
func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name     string
		endpoint provider.Endpoint
		body     string
		wantOut  int64 // reserved beyond the prompt
	}{
		{"chat max_tokens", provider.EndpointChat, `{"max_tokens":100}`, 100},
		{"chat n", provider.EndpointChat, `{"max_tokens":100,"n":3}`, 300},
		{"chat default allowance", provider.EndpointChat, `{}`, 1000},
		{"completion string", provider.EndpointCompletion, `{"prompt":"a","max_tokens":100}`, 100},
		{"completion default", provider.EndpointCompletion, `{"prompt":"a"}`, DefaultCompletionMaxTokens},
		{"completion token IDs", provider.EndpointCompletion, `{"prompt":[1,2,3],"max_tokens":100}`, 100},
		{"completion prompts", provider.EndpointCompletion, `{"prompt":["a","b","c"],"max_tokens":100,"n":2}`, 600},
		{"completion token prompts", provider.EndpointCompletion, `{"prompt":[[1],[2]],"max_tokens":100}`, 200},
		{"completion best_of", provider.EndpointCompletion, `{"prompt":["a","b"],"max_tokens":100,"n":2,"best_of":5}`, 1000},
		{"embedding", provider.EndpointEmbedding, `{"input":["a","b"]}`, 0},
		{"chat fields after messages", provider.EndpointChat, `{"messages":[{"role":"user","content":"hi","max_tokens":7,"n":9}],"n":2,"max_completion_tokens":50}`, 100},
		{"chat max_completion_tokens first", provider.EndpointChat, `{"max_tokens":100,"max_completion_tokens":20}`, 20},
		{"chat duplicates: the first", provider.EndpointChat, `{"max_tokens":100,"max_tokens":5}`, 100},
		{"chat zero max_completion_tokens", provider.EndpointChat, `{"max_completion_tokens":0,"max_tokens":30}`, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := int64(len(tt.body)/4+1) + tt.wantOut
			if got := estimateTokens(tt.endpoint, []byte(tt.body), Sizes{}, &catalog.Model{}, 1000); got != want {
				t.Errorf("estimateTokens = %d, want %d", got, want)
			}
			// Sizes read beforehand, as a handler's validation reads
			// them, count instead of the body's (issue 18): the same.
			s := SizesOf([]byte(tt.body))
			if got := estimateTokens(tt.endpoint, []byte(tt.body), s, &catalog.Model{}, 1000); got != want {
				t.Errorf("estimateTokens with %+v = %d, want %d", s, got, want)
			}
			if got := estimateTokens(tt.endpoint, []byte("{}"), s, &catalog.Model{}, 1000); got != 1+tt.wantOut {
				t.Errorf("estimateTokens of {} with %+v = %d, want %d: the body walked again", s, got, 1+tt.wantOut)
			}
		})
	}
}

// A request's sizes, read by its handler, describe its Body: the limits
// of a request with a chat translation read the translation's instead.
func TestRequestSizes(t *testing.T) {
	read := Sizes{Read: true, MaxTokens: 5, Prompts: 1}
	if got := (&Request{Body: []byte(`{}`), Sizes: read}).sizes(); got != read {
		t.Errorf("sizes = %+v, want the handler's %+v", got, read)
	}
	if got := (&Request{Body: []byte(`{}`), ChatBody: []byte(`{"max_tokens":9}`), Sizes: read}).sizes(); got.Read {
		t.Errorf("with a chat translation, sizes = %+v, want them unread", got)
	}
}

// The token estimate's products and sum stop at math.MaxInt64 instead of
// wrapping (2^63-1 is a valid max_tokens).
func TestCapped(t *testing.T) {
	tests := []struct {
		a, b, mul, add int64
	}{
		{0, 0, 0, 0},
		{3, 4, 12, 7},
		{0, math.MaxInt64, 0, math.MaxInt64},
		{math.MaxInt64, 0, 0, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{2, 1 << 62, math.MaxInt64, 1<<62 + 2},
		{4, 1 << 62, math.MaxInt64, 1<<62 + 4}, // wrapped to 0
		{1 << 31, 1 << 32, math.MaxInt64, 1<<31 + 1<<32},
		{1<<31 - 1, 1 << 32, (1<<31 - 1) << 32, 1<<31 - 1 + 1<<32},
		{math.MaxInt64 / 2, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64 - 1},
		{math.MaxInt64/2 + 1, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64/2 + 1, math.MaxInt64/2 + 1, math.MaxInt64, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := mulCapped(tt.a, tt.b); got != tt.mul {
			t.Errorf("mulCapped(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.mul)
		}
		if got := mulCapped(tt.b, tt.a); got != tt.mul {
			t.Errorf("mulCapped(%d, %d) = %d, want %d", tt.b, tt.a, got, tt.mul)
		}
		if got := addCapped(tt.a, tt.b); got != tt.add {
			t.Errorf("addCapped(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.add)
		}
	}
	// Hand-worked estimates: the prompt of {} is 1 token.
	for _, tt := range []struct {
		name     string
		endpoint provider.Endpoint
		s        Sizes
		want     int64
	}{
		{"chat 2^63-1", provider.EndpointChat, Sizes{Read: true, MaxTokens: math.MaxInt64}, math.MaxInt64},
		{"chat 2^63-2", provider.EndpointChat, Sizes{Read: true, MaxTokens: math.MaxInt64 - 1}, math.MaxInt64},
		{"chat 2^63-3", provider.EndpointChat, Sizes{Read: true, MaxTokens: math.MaxInt64 - 2}, math.MaxInt64 - 1},
		{"chat n 128", provider.EndpointChat, Sizes{Read: true, MaxTokens: 1 << 56, N: 128}, math.MaxInt64},
		{"chat n 127", provider.EndpointChat, Sizes{Read: true, MaxTokens: 1 << 56, N: 127}, 127<<56 + 1},
		{"completion 2048 × 128 × 2^45", provider.EndpointCompletion, Sizes{Read: true, MaxTokens: 1 << 45, N: 128, Prompts: 2048}, math.MaxInt64},
		{"completion 2048 × 128 × (2^45-1)", provider.EndpointCompletion, Sizes{Read: true, MaxTokens: 1<<45 - 1, N: 128, Prompts: 2048}, 1<<63 - 1<<18 + 1},
		{"completion best_of 20 × 2048 × 2^60", provider.EndpointCompletion, Sizes{Read: true, MaxTokens: 1 << 60, BestOf: 20, Prompts: 2048}, math.MaxInt64},
	} {
		if got := estimateTokens(tt.endpoint, []byte("{}"), tt.s, &catalog.Model{}, 1000); got != tt.want {
			t.Errorf("%s: estimateTokens = %d, want %d", tt.name, got, tt.want)
		}
	}
}
