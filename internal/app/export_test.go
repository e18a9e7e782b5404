package app

import "github.com/switchyard-gw/switchyard/internal/events"

// HandleChangesForTest registers fn after the app's own handler of the
// change feed: when fn sees a change, the app has applied it.
func (a *App) HandleChangesForTest(fn func(events.Change)) { a.watcher.Handle(fn) }

// RetriesForTest returns the routing knobs' retries in force.
func (a *App) RetriesForTest() int { return a.gateway.Routing().Retries }
