package app

import (
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/health"
)

// gatewayRouting returns the gateway's retry knobs of the configuration's
// routing section. The configuration's zeros are meant: `retries: 0`
// turns retrying off.
func gatewayRouting(r config.Routing) gateway.Routing {
	g := gateway.Routing{Retries: r.Retries, BackoffBase: r.Backoff.Base, BackoffMax: r.Backoff.Max, MaxRetryAfter: r.MaxRetryAfter}
	if g.Retries == 0 {
		g.Retries = -1
	}
	return g
}

// healthConfig returns the health tracker's settings of the routing
// section; as for the gateway, a configured 0 is meant, not a default:
// `allowed_fails: 0` never cools a deployment by its failures, and a
// ratio or floor of 0 allows no retries by it.
func healthConfig(r config.Routing) health.Config {
	c := health.Config{
		Cooldown: r.Cooldown, AllowedFails: r.AllowedFails,
		BudgetRatio: r.RetryBudget.Ratio, BudgetWindow: r.RetryBudget.Window, BudgetMinPerSecond: r.RetryBudget.MinPerSecond,
	}
	if c.AllowedFails == 0 {
		c.AllowedFails = -1
	}
	if c.BudgetRatio == 0 {
		c.BudgetRatio = -1
	}
	if c.BudgetMinPerSecond == 0 {
		c.BudgetMinPerSecond = -1
	}
	return c
}

// buildHealth makes the deployments' health tracker, shared through Redis
// when the gateway has one (Run runs the sharing). Its clock is the wall
// clock, never config.Now: that one dates model lifecycles, and a test
// that pins it must not freeze cooldowns and retry budgets with it.
func (a *App) buildHealth() {
	a.health = health.New(healthConfig(a.cfg.Routing), time.Now)
	if a.redis != nil {
		a.healthShare = health.NewRedis(a.redis, a.redisPrefix()+"health:", a.log)
		a.health.Share(a.healthShare)
	}
}
