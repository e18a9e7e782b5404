package app_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/events"
)

// waitFor polls cond until it holds, and fails t when timeout passes
// first, naming what it waited for. Tests wait with it, never with a bare
// sleep (issue 13).
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", timeout, what)
		}
		<-tick.C
	}
}

// followChanges notes the position of the change feed that g's app has
// applied, for waitApplied, once the app serves: Run starts following
// the feed before it serves, and changes from then on reach the app.
func (g *gateway) followChanges(t testing.TB) {
	t.Helper()
	g.applied = new(atomic.Int64)
	g.App.HandleChangesForTest(func(c events.Change) { g.applied.Store(c.Seq) })
	waitFor(t, 5*time.Second, "the server serving", func() bool {
		resp, err := http.Get(g.URL + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// waitApplied waits until g's app has applied every change stored so far
// (a limit set, a rule added): its caches then hold them. A change the app
// is not signalled of (a NOTIFY before its LISTEN, a SQLite commit on the
// connection it polls) arrives with the watcher's catch-up read, at most
// 5 s later.
func (g *gateway) waitApplied(t testing.TB) {
	t.Helper()
	latest, err := g.Store.LatestChange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the change feed reaches the server", func() bool { return g.applied.Load() >= latest })
}
