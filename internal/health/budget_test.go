package health_test

import (
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/health"
)

// bstep is one step of a budget scenario: after the clock moves by wait,
// attempts first attempts, then tries retries of which want fit.
type bstep struct {
	wait     time.Duration
	attempts int
	tries    int
	want     int
}

func TestBudget(t *testing.T) {
	base := health.Config{BudgetRatio: 0.2, BudgetWindow: 10 * s, BudgetMinPerSecond: 1}
	cases := []struct {
		name  string
		cfg   health.Config
		steps []bstep
	}{
		{"floor: a quiet model may retry MinPerSecond × window", base, []bstep{
			{tries: 12, want: 10},
		}},
		{"defaults are 0.2, 10s, 1/s", health.Config{}, []bstep{
			{tries: 12, want: 10},
			{attempts: 100, tries: 12, want: 10}, // 20 in all
		}},
		{"ratio: a fifth of first attempts", base, []bstep{
			{attempts: 100, tries: 25, want: 20},
			{attempts: 5, tries: 2, want: 1},
		}},
		{"the floor holds below the ratio", base, []bstep{
			{attempts: 30, tries: 12, want: 10}, // 0.2 × 30 = 6 < 10
		}},
		{"window slides by whole seconds", base, []bstep{
			{attempts: 100, tries: 20, want: 20},
			{wait: 5 * s, attempts: 50, tries: 12, want: 10}, // 150 × 0.2 = 30
			{wait: 4*s + 999*time.Millisecond, tries: 1, want: 0},
			// The first second has left: 50 attempts, 10 retries in the window.
			{wait: time.Millisecond, tries: 5, want: 0},
			{attempts: 10, tries: 5, want: 2},
			// Everything has left.
			{wait: 10 * s, tries: 11, want: 10},
		}},
		{"retries spread over the window add up", base, []bstep{
			{tries: 4, want: 4},
			{wait: 3 * s, tries: 4, want: 4},
			{wait: 3 * s, tries: 4, want: 2},
			{wait: 4 * s, tries: 4, want: 4}, // the first 4 have left
		}},
		{"no floor", health.Config{BudgetRatio: 0.5, BudgetMinPerSecond: -1}, []bstep{
			{tries: 1, want: 0},
			{attempts: 4, tries: 3, want: 2},
		}},
		{"no ratio", health.Config{BudgetRatio: -1, BudgetMinPerSecond: 0.5, BudgetWindow: 4 * s}, []bstep{
			{attempts: 1000, tries: 3, want: 2},
		}},
		{"window below a second counts as one", health.Config{BudgetWindow: time.Millisecond, BudgetMinPerSecond: 2}, []bstep{
			{tries: 3, want: 2},
			{wait: s, tries: 3, want: 2},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, c := newTracker(tc.cfg)
			for i, st := range tc.steps {
				c.advance(st.wait)
				for range st.attempts {
					tr.Attempt("m")
				}
				got := 0
				for range st.tries {
					if tr.TryRetry("m") {
						got++
					}
				}
				if got != st.want {
					t.Fatalf("step %d: %d of %d retries fit, want %d", i, got, st.tries, st.want)
				}
			}
		})
	}
}

// TestBudgetPerModel: each model has its own budget.
func TestBudgetPerModel(t *testing.T) {
	tr, _ := newTracker(health.Config{BudgetMinPerSecond: 0.1, BudgetWindow: 10 * s})
	if !tr.TryRetry("a") || tr.TryRetry("a") {
		t.Fatal("a: want one retry, then none")
	}
	if !tr.TryRetry("b") {
		t.Error("b: a's retry spent b's budget")
	}
}
