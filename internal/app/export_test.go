package app

import (
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/health"
)

// HandleChangesForTest registers fn after the app's own handler of the
// change feed: when fn sees a change, the app has applied it.
func (a *App) HandleChangesForTest(fn func(events.Change)) { a.watcher.Handle(fn) }

// RetriesForTest returns the routing knobs' retries in force.
func (a *App) RetriesForTest() int { return a.gateway.Routing().Retries }

// HealthForTest returns the deployments' health as this replica sees it,
// in the order of keys ("provider/upstream_id").
func (a *App) HealthForTest(keys []string) []health.State { return a.health.Snapshot(keys) }
