package gateway

import (
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// Health is the passive health of deployments and the retry budget
// (health.Tracker).
type Health interface {
	// Order returns the deployments to try, best first, leaving out those
	// cooling down; coolingUntil is when the first of those is usable
	// again (zero when none was left out), and coolingByRateLimit reports
	// that the cooling came from upstream rate limiting.
	Order(ds []route.Deployment, s catalog.Strategy) (order []route.Deployment, coolingUntil time.Time, coolingByRateLimit bool)
	// Rank orders ds as Order does but keeps those cooling down.
	Rank(ds []route.Deployment, s catalog.Strategy) []route.Deployment
	// Cooling reports whether the deployment is cooling down now.
	Cooling(key string) bool
	// Begin counts a call in flight to the deployment until done.
	Begin(key string) (done func())
	// Success notes a call that answered, after ttfb.
	Success(key string, ttfb time.Duration)
	// Failure notes a failed call of class; retryAfter > 0 is the
	// upstream's Retry-After.
	Failure(key, class string, retryAfter time.Duration)
	// Attempt counts a model's first attempt, TryRetry reports (and
	// counts) whether one more retry fits the model's retry budget.
	Attempt(model string)
	TryRetry(model string) bool
}

// inOrder is the Health of a gateway without one: every deployment in
// catalogue order, no cooldowns, no retry budget.
type inOrder struct{}

func (inOrder) Order(ds []route.Deployment, _ catalog.Strategy) ([]route.Deployment, time.Time, bool) {
	return ds, time.Time{}, false
}
func (inOrder) Cooling(string) bool                                               { return false }
func (inOrder) Rank(ds []route.Deployment, _ catalog.Strategy) []route.Deployment { return ds }
func (inOrder) Begin(string) func()                                               { return func() {} }
func (inOrder) Success(string, time.Duration)                                     {}
func (inOrder) Failure(string, string, time.Duration)                             {}
func (inOrder) Attempt(string)                                                    {}
func (inOrder) TryRetry(string) bool                                              { return true }
