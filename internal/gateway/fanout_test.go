package gateway_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// gauge is the fan provider with latency, counting the calls it runs at
// once and the calls that ran to the end.
type gauge struct {
	fan
	latency                 time.Duration
	inFlight, peak, answers atomic.Int64
}

func (g *gauge) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	n := g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	if _, _, err := g.read(r); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, &provider.Error{Provider: "fan", Kind: provider.KindCanceled, Err: ctx.Err()}
	case <-time.After(g.latency): // the upstream thinking
	}
	g.answers.Add(1)
	return g.fan.Chat(ctx, r)
}

// Issue 13: a legacy completion on a chat model made one upstream call per
// prompt, all at once, and let them all run after one had failed.
func TestCompleteFanOutIsBounded(t *testing.T) {
	prompts := func(first string, n int) []string {
		ps := []string{first}
		for i := 1; i < n; i++ {
			ps = append(ps, fmt.Sprint("p", i))
		}
		return ps
	}
	tests := []struct {
		name        string
		prompts     []string
		latency     time.Duration
		wantErr     bool
		maxAnswered int64
	}{
		{"all answered, at most MaxPromptCalls at once", prompts("p0", 100), 2 * time.Millisecond, false, 100},
		{"the first failure cancels the rest", prompts("fail", 100), 10 * time.Second, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := &gauge{latency: tt.latency}
			g := newGateway(t, up)
			c, tg := completionCall(t, g, "fan-chat", `{"model":"fan-chat","prompt":["x"]}`)
			start := time.Now()
			_, err := g.Complete(context.Background(), tg, c, tt.prompts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want an error: %v", err, tt.wantErr)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Complete took %v", d)
			}
			if p := up.peak.Load(); p > gateway.MaxPromptCalls {
				t.Errorf("%d upstream calls at once, want at most %d", p, gateway.MaxPromptCalls)
			}
			if a := up.answers.Load(); a > tt.maxAnswered || !tt.wantErr && a != tt.maxAnswered {
				t.Errorf("%d calls answered, want %d", a, tt.maxAnswered)
			}
		})
	}
}
