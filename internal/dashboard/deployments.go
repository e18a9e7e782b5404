package dashboard

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/health"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// deploymentGroup is one reachable model with its deployments, as the
// gateway tries them.
type deploymentGroup struct {
	ID                     string
	Strategy               catalog.Strategy
	Fallbacks              []string
	ContextWindowFallbacks []string
	Rows                   []deploymentRow
	Cooling, Failing       int // deployments cooling down; with failures in the window
}

// deploymentRow is one deployment of a model.
type deploymentRow struct {
	Provider, UpstreamID string
	Weight, Priority     int
	// Health is nil when health is not tracked.
	Health *deploymentState
	key    string // "provider/upstream_id"
}

// deploymentState is a deployment's passive health, worded for the page.
type deploymentState struct {
	// Cooling is "" for a healthy deployment, else when the cooldown
	// ends, as in "15:04:05 UTC", with the date when not today.
	Cooling string
	// Reason and Left say why it cools down and for how much longer.
	Reason, Left       string
	Failures, InFlight int
	Latency            string // "" when unmeasured
	Errors             string // "unavailable ×3, timeout ×1"
}

// deploymentsSection is the page's list of deployments.
type deploymentsSection struct {
	Groups           []deploymentGroup
	Deployments      int
	Cooling, Failing int
	Tracked          bool // whether health is tracked
}

// deploymentsOf lists the deployments of every reachable model of t with
// their health from h (nil: not tracked). Models with a deployment cooling
// down come first, then those with failures in the window, each set in
// catalogue order.
func deploymentsOf(t *route.Table, h DeploymentHealth, now time.Time) deploymentsSection {
	groups, keys := deploymentGroups(t, now)
	s := deploymentsSection{Deployments: len(keys), Tracked: h != nil}
	if h != nil && len(keys) > 0 {
		states := stateByKey(h.Snapshot(keys))
		for i := range groups {
			g := &groups[i]
			for j := range g.Rows {
				st := describeState(states[g.Rows[j].key], now)
				g.Rows[j].Health = &st
				g.Cooling += btoi(st.Cooling != "")
				g.Failing += btoi(st.Failures > 0)
			}
			s.Cooling += g.Cooling
			s.Failing += g.Failing
		}
	}
	slices.SortStableFunc(groups, func(a, b deploymentGroup) int {
		return cmp.Or(btoi(b.Cooling > 0)-btoi(a.Cooling > 0), btoi(b.Failing > 0)-btoi(a.Failing > 0))
	})
	s.Groups = groups
	return s
}

// deploymentGroups returns the reachable models of t that are not retired
// with their deployments, and the deployments' keys.
func deploymentGroups(t *route.Table, now time.Time) ([]deploymentGroup, []string) {
	var groups []deploymentGroup
	var keys []string
	for _, m := range t.Catalog().All() {
		ds := t.Deployments(m)
		if len(ds) == 0 || m.Retired(now) {
			continue
		}
		g := deploymentGroup{ID: m.ID, Strategy: cmp.Or(m.Strategy, catalog.StrategyWeighted),
			Fallbacks: m.Fallbacks, ContextWindowFallbacks: m.ContextWindowFallbacks}
		for _, d := range ds {
			g.Rows = append(g.Rows, deploymentRow{Provider: d.Provider.Name(), UpstreamID: d.UpstreamID,
				Weight: max(d.Weight, 1), Priority: d.Priority, key: d.Key})
			keys = append(keys, d.Key)
		}
		groups = append(groups, g)
	}
	return groups, keys
}

// stateByKey indexes states by their keys; a key missing from it is
// healthy, as health.Tracker reports a key it never heard of.
func stateByKey(states []health.State) map[string]health.State {
	out := make(map[string]health.State, len(states))
	for _, st := range states {
		out[st.Key] = st
	}
	return out
}

// describeState words st for the page at time now.
func describeState(st health.State, now time.Time) deploymentState {
	d := deploymentState{Failures: st.FailuresInWindow, InFlight: st.InFlight, Errors: errorClasses(st.RecentErrors)}
	if st.LatencyEWMA > 0 {
		d.Latency = latency(st.LatencyEWMA)
	}
	if st.CoolingUntil.After(now) {
		until := st.CoolingUntil.UTC()
		layout := "15:04:05 UTC"
		if y, m, day := until.Date(); y != now.UTC().Year() || m != now.UTC().Month() || day != now.UTC().Day() {
			layout = "2006-01-02 15:04:05 UTC"
		}
		d.Cooling, d.Reason = until.Format(layout), coolingReason(st.Reason)
		d.Left = st.CoolingUntil.Sub(now).Round(time.Second).String()
	}
	return d
}

// coolingReason words the cause of a cooldown: too many failures, an
// upstream 429, or another failure whose answer asked to wait.
func coolingReason(r string) string {
	switch r {
	case health.ReasonFailures:
		return "failures"
	case health.ClassRateLimit:
		return "rate limited"
	case "":
		return "cause unknown"
	}
	return r + ", asked to wait"
}

// errorClasses words failures by class: "unavailable ×3, timeout ×1".
func errorClasses(cs []health.ClassCount) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s ×%d", c.Class, c.Count))
	}
	return strings.Join(parts, ", ")
}

// latency formats a latency: "850 µs", "420 ms", "1.3 s".
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	if d < time.Second {
		return fmt.Sprintf("%d ms", max(d.Milliseconds(), 1))
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
