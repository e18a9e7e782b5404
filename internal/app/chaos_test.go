package app_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// The chaos suite of issue 15 (item 8): the real gateway, over HTTP on
// loopback, in front of fake upstreams that fail on purpose. Each test
// sends chaosRequests() requests (chat and stream in turn, 8 clients at
// once), logs what its clients saw, and checks that every attempt was
// metered exactly once. Bounds are derived from the configuration and
// generous: they hold on a loaded machine, and break only when the
// routing does.

// chaosModel is the model the chaos suite asks for.
const chaosModel = "gpt-4o-mini"

// failing is a fault set that fails every call with status.
func failing(status int) fakeupstream.Faults {
	return fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: 1, Status: status}}}
}

// One healthy deployment among three that fail every call (500, 502 and
// 503; resets before the first byte; stalls cut by the timeouts): no
// client sees an error, when retries may reach every deployment.
func TestChaosOneHealthyDeployment(t *testing.T) {
	fs := fakes(t, 4)
	var errs []fakeupstream.ErrorFault
	for _, status := range []int{500, 502, 503} {
		errs = append(errs, fakeupstream.ErrorFault{Rate: 1.0 / 3, Status: status})
	}
	fs[1].SetFaults(fakeupstream.Faults{Seed: 1, Errors: errs})
	fs[2].SetFaults(fakeupstream.Faults{Reset: 1})
	fs[3].SetFaults(fakeupstream.Faults{Stall: 1})
	r := startChaos(t, 1, upstreamsOf(fs), nil, func(c *config.Config) {
		deployed(c, chaosModel, fs)
		for _, name := range []string{"d1", "d2", "d3"} {
			// A stall is cut by the first byte's timeout, or for a
			// plain call by the whole call's.
			p := provider(t, c, name)
			p.FirstByteTimeout, p.Timeout = 300*time.Millisecond, time.Second
		}
		// Retries reach every deployment. Before a failing deployment
		// cools down it fails allowed_fails calls, and then once more for
		// each request in flight to it (stalled, say): each failure needs
		// a retry, in the first moments, when stalled clients make few
		// first attempts for the budget's ratio. The budget's floor covers
		// that burst.
		c.Routing.Retries = len(fs) - 1
		burst := (len(fs) - 1) * (c.Routing.AllowedFails + chaosConcurrency)
		c.Routing.RetryBudget.MinPerSecond = float64(burst) / c.Routing.RetryBudget.Window.Seconds()
	})
	tl := r.drive(chaosModel, chaosRequests())
	r.report(t, tl, 0)
	tl.checkValid(t)
	if n := tl.errors(); n != 0 {
		t.Errorf("%d client-visible errors, want 0 while d0 answers", n)
	}
	if n := tl.count(func(o outcome) bool { return o.deployment != "d0" }); n != 0 {
		t.Errorf("%d answers not from d0, the only healthy deployment", n)
	}
	if e, resets, stalls := fs[1].Stats().Errors, fs[2].Stats().Resets, fs[3].Stats().Stalls; len(e) == 0 || resets == 0 || stalls == 0 {
		t.Errorf("faults injected: errors %v, %d resets, %d stalls; want some of each", e, resets, stalls)
	}
	r.metered(t)
}

// Every deployment fails 10% of its calls (5xx, 529, resets) at random:
// retries hide nearly all of it.
func TestChaosEveryDeploymentFlaky(t *testing.T) {
	fs := fakes(t, 3)
	for i, f := range fs {
		var errs []fakeupstream.ErrorFault
		for _, status := range []int{500, 502, 503, 529} {
			errs = append(errs, fakeupstream.ErrorFault{Rate: 0.02, Status: status})
		}
		f.SetFaults(fakeupstream.Faults{Seed: uint64(10 + i), Errors: errs, Reset: 0.02})
	}
	r := startChaos(t, 1, upstreamsOf(fs), nil, func(c *config.Config) { deployed(c, chaosModel, fs) })
	tl := r.drive(chaosModel, chaosRequests())
	r.report(t, tl, 0)
	tl.checkValid(t)
	if n := tl.errors(); float64(n) > 0.005*float64(len(tl)) {
		t.Errorf("%d client-visible errors of %d requests, want at most 0.5%%", n, len(tl))
	}
	r.metered(t)
}

// Every deployment answers 503: the retry budget keeps the upstream calls
// within 1.2 × the requests, and the answers come as fast as the backoff
// allows (no retry storm, no wait beyond the configured caps).
func TestChaosTotalOutage(t *testing.T) {
	fs := fakes(t, 3)
	for _, f := range fs {
		f.SetFaults(failing(503))
	}
	var rt config.Routing
	r := startChaos(t, 1, upstreamsOf(fs), nil, func(c *config.Config) {
		deployed(c, chaosModel, fs)
		rt = c.Routing
	})
	tl := r.drive(chaosModel, chaosRequests())
	calls := r.calls()
	r.report(t, tl, 0)
	tl.checkValid(t)
	if n := tl.count(func(o outcome) bool { return o.refused && (o.status == 502 || o.status == 503) }); n != len(tl) {
		t.Errorf("%d of %d requests answered 502 or 503", n, len(tl))
	}
	if limit := 1.2 * float64(len(tl)); float64(calls) > limit {
		t.Errorf("%d upstream calls for %d requests, want at most %.0f: the retry budget did not hold", calls, len(tl), limit)
	}
	// A request waits at most a backoff (capped) before each retry, or an
	// upstream's Retry-After up to its cap; 2 s covers the rest.
	bound := time.Duration(rt.Retries)*rt.Backoff.Max + rt.MaxRetryAfter + 2*time.Second
	if p99 := tl.latency(0.99); p99 > bound {
		t.Errorf("p99 latency %v, want at most %v", p99, bound)
	}
	r.metered(t)
}

// A deployment that cools down gets no call until its cooldown ends, then
// gets calls again (one replica; see TestChaosCooldownSharedByReplicas).
func TestChaosCooldownEnds(t *testing.T) { testCooldown(t, 1, nil) }

// Three replicas on one Redis: the cooldown decided by whichever replica
// counts the last allowed failure holds on all three until it ends.
func TestChaosCooldownSharedByReplicas(t *testing.T) {
	url := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: cooldowns shared by replicas are not tested")
	}
	testCooldown(t, 3, map[string]string{"SWITCHYARD_REDIS_URL": url})
}

func testCooldown(t *testing.T, replicas int, env map[string]string) {
	fs := fakes(t, 2)
	bad := fs[1]
	bad.SetFaults(failing(503))
	const cooldown = 2 * time.Second
	prefix := "switchyard-test:" + rand.Text() + ":" // the deployments' health is this test's alone
	r := startChaos(t, replicas, upstreamsOf(fs), env, func(c *config.Config) {
		deployed(c, chaosModel, fs)
		c.Routing.Cooldown, c.Redis.Prefix = cooldown, prefix
	})
	keys := []string{"d1/" + chaosModel}
	cooling := func(g *gateway) bool { return !g.App.HealthForTest(keys)[0].CoolingUntil.IsZero() }
	start := time.Now() // the cooldown starts later, and ends after start+cooldown
	allowed := int64(config.Default().Routing.AllowedFails)
	for i := 0; bad.Calls() < allowed; i++ {
		if o := r.send(i%replicas, chaosModel, i%2 == 1); o.failed() {
			t.Fatalf("request %d failed: %+v", i, o)
		}
	}
	for i, g := range r.replicas {
		waitFor(t, 5*time.Second, fmt.Sprintf("d1 cooling on replica %d", i), func() bool { return cooling(g) })
	}
	base, sent := bad.Calls(), 0
	pace := time.NewTicker(5 * time.Millisecond)
	defer pace.Stop()
	for end := start.Add(cooldown * 3 / 4); time.Now().Before(end); sent++ {
		<-pace.C
		if o := r.send(sent%replicas, chaosModel, sent%2 == 1); o.failed() || o.deployment != "d0" {
			t.Errorf("while d1 cools: %+v", o)
		}
	}
	if n := bad.Calls() - base; n != 0 || sent < replicas {
		t.Errorf("d1 got %d calls of %d requests while cooling on every replica, want 0 (of %d at least)", n, sent, replicas)
	}
	bad.SetFaults(fakeupstream.Faults{})
	for i, g := range r.replicas {
		waitFor(t, 10*time.Second, fmt.Sprintf("replica %d sending d1 calls again", i), func() bool {
			return !cooling(g) && r.send(i, chaosModel, false).deployment == "d1"
		})
	}
	t.Logf("%d replicas: d1 cooled after %d failures; %d requests while it cooled, none to d1; calls again after %v",
		replicas, allowed, sent, time.Since(start).Round(time.Millisecond))
	r.metered(t)
}

// An OpenAI model whose only deployment fails falls back to a Claude
// model, translated, and when that fails too to a Gemini one: the answer
// and its record name the model that answered, the record is priced at
// it and notes the model asked for.
func TestChaosFallbackAcrossFamilies(t *testing.T) {
	oai := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(oai.Close)
	ant := fakeanthropic.Start(fakeanthropic.Options{})
	t.Cleanup(ant.Close)
	gem := fakegemini.Start(fakegemini.Options{})
	t.Cleanup(gem.Close)
	oai.SetFaults(failing(503))
	env := map[string]string{
		"OPENAI_BASE_URL": oai.URL, "OPENAI_API_KEY": "test-upstream-key",
		"ANTHROPIC_BASE_URL": ant.URL, "ANTHROPIC_API_KEY": "test-upstream-key",
		"GEMINI_BASE_URL": gem.URL, "GEMINI_API_KEY": fakegemini.DefaultKey,
	}
	chain := []string{"claude-haiku-4-5", "gemini-2.5-flash"}
	r := startChaos(t, 1, []upstream{oai, ant, gem}, env, func(c *config.Config) {
		c.Models.Add = append(c.Models.Add, config.ModelEntry{ID: chaosModel, Fallbacks: chain})
	})
	n := chaosRequests() / 2
	for i, answering := range chain {
		if i == 1 {
			ant.SetFaults(failing(529))
		}
		before := r.calls()
		tl := r.drive(chaosModel, n)
		t.Logf("answered by %s:", answering)
		r.report(t, tl, before)
		tl.checkValid(t)
		if m := tl.count(func(o outcome) bool { return o.failed() || o.model != answering }); m != 0 {
			t.Errorf("%d of %d answers failed or not by %s", m, n, answering)
		}
	}
	byModel := map[string]int{}
	for _, rec := range r.metered(t) {
		byModel[rec.Model]++
		in, out := price(t, rec.Model)
		if rec.RequestedModel != chaosModel || rec.InputPrice != in || rec.OutputPrice != out || rec.Status != 200 {
			t.Errorf("record %+v: want %s's prices, requested_model %s, status 200", rec, rec.Model, chaosModel)
		}
	}
	if byModel[chain[0]] != n || byModel[chain[1]] != n {
		t.Errorf("records by model %v, want %d of each fallback", byModel, n)
	}
}

// Streams that break after their first chunk (a reset, an event that is
// not JSON) end with an error event, are never retried, and are recorded
// once; latency spikes and slow drips only slow answers down.
func TestChaosStreamFaults(t *testing.T) {
	fs := fakes(t, 2)
	for i, f := range fs {
		f.SetFaults(fakeupstream.Faults{Seed: uint64(20 + i),
			Garbage: fakeupstream.StreamFault{Rate: 0.05, After: 2}, StreamReset: fakeupstream.StreamFault{Rate: 0.05, After: 3},
			Spike: fakeupstream.DelayFault{Rate: 0.1, Delay: 100 * time.Millisecond}, Drip: fakeupstream.DelayFault{Rate: 0.2, Delay: 5 * time.Millisecond}})
	}
	r := startChaos(t, 1, upstreamsOf(fs), nil, func(c *config.Config) { deployed(c, chaosModel, fs) })
	tl := r.drive(chaosModel, chaosRequests())
	r.report(t, tl, 0)
	tl.checkValid(t)
	var broken int64
	for _, f := range fs {
		st := f.Stats()
		broken += st.Garbage + st.StreamResets
	}
	cut := tl.count(func(o outcome) bool { return o.cut })
	if refused := tl.count(func(o outcome) bool { return o.refused }); refused != 0 || int64(cut) != broken {
		t.Errorf("%d refused, %d streams cut; want none refused and the %d broken streams cut", refused, cut, broken)
	}
	failed := 0
	for _, rec := range r.metered(t) {
		if rec.Status != 200 {
			if failed++; rec.Attempts != 1 || rec.Status < 500 {
				t.Errorf("a stream broken midway is recorded as one failed attempt: %+v", rec)
			}
		}
	}
	if failed != cut {
		t.Errorf("%d failed records, want the %d cut streams", failed, cut)
	}
}
