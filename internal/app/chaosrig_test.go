package app_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// upstream is what the chaos suite reads of a fake, of any family.
type upstream interface {
	Calls() int64
	Stats() fakeupstream.Stats
}

// chaosRig is gateway replicas on one database, one client key, and the
// fakes behind them.
type chaosRig struct {
	urls      []string
	replicas  []*gateway
	key       string
	account   string
	upstreams []upstream
	client    *http.Client
	// sent counts the requests sent so far: each is metered once.
	sent int
}

// startChaos starts replicas gateways on one SQLite database, configured
// from env and mut, in front of ups.
func startChaos(t *testing.T, replicas int, ups []upstream, env map[string]string, mut func(*config.Config)) *chaosRig {
	t.Helper()
	db := storetest.SQLiteURL(t)
	r := &chaosRig{upstreams: ups}
	for range replicas {
		g := startWith(t, db, env, mut)
		r.replicas, r.urls = append(r.replicas, g), append(r.urls, g.URL)
	}
	r.key, _ = r.replicas[0].newKey(t, "chaos@example.com")
	acct, err := r.replicas[0].Store.AccountByEmail(context.Background(), "chaos@example.com")
	if err != nil {
		t.Fatal(err)
	}
	r.account = acct.ID
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = chaosConcurrency
	r.client = &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	return r
}

// drive sends n requests for model as drive does, to the replicas in turn.
func (r *chaosRig) drive(model string, n int) tally {
	r.sent += n
	return drive(r.client, r.urls, r.key, model, n)
}

// send sends one request for model to replica i.
func (r *chaosRig) send(i int, model string, stream bool) outcome {
	r.sent++
	return send(r.client, r.urls[i], r.key, model, stream)
}

// calls returns the calls every upstream has received.
func (r *chaosRig) calls() int64 {
	var n int64
	for _, u := range r.upstreams {
		n += u.Calls()
	}
	return n
}

// report logs what the clients of tl saw and what the upstreams did since
// they had received before calls: the figures of issue 15's closing note.
func (r *chaosRig) report(t *testing.T, tl tally, before int64) {
	t.Helper()
	tl.report(t, r.calls()-before)
	var f fakeupstream.Stats
	f.Errors = map[int]int64{}
	for _, u := range r.upstreams {
		st := u.Stats()
		for status, n := range st.Errors {
			f.Errors[status] += n
		}
		f.Resets, f.Stalls, f.StreamResets, f.Garbage = f.Resets+st.Resets, f.Stalls+st.Stalls, f.StreamResets+st.StreamResets, f.Garbage+st.Garbage
		f.Spikes, f.Drips = f.Spikes+st.Spikes, f.Drips+st.Drips
	}
	t.Logf("faults injected so far: errors by status %v, %d resets, %d stalls, %d streams reset, %d garbage events, %d spikes, %d drips",
		f.Errors, f.Resets, f.Stalls, f.StreamResets, f.Garbage, f.Spikes, f.Drips)
}

// metered waits for the usage of every request sent and checks that each
// attempt is metered exactly once: one record per request, and as many
// attempts in the records as the upstreams received calls. It returns the
// records.
func (r *chaosRig) metered(t *testing.T) []meter.Record {
	t.Helper()
	st := r.replicas[0].Store
	waitRows(t, st, r.account, int64(r.sent))
	recs, err := st.ListUsage(context.Background(), r.account, r.sent+1)
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for _, rec := range recs {
		attempts += rec.Attempts
	}
	if calls := r.calls(); int64(attempts) != calls {
		t.Errorf("%d records count %d attempts; the upstreams received %d calls", len(recs), attempts, calls)
	}
	return recs
}

// fakes starts n fake OpenAI-compatible upstreams, closed with t.
func fakes(t *testing.T, n int) []*fakeopenai.Server {
	out := make([]*fakeopenai.Server, n)
	for i := range out {
		out[i] = fakeopenai.Start(fakeopenai.Options{})
		t.Cleanup(out[i].Close)
	}
	return out
}

// upstreamsOf returns fs as the rig counts them.
func upstreamsOf(fs []*fakeopenai.Server) []upstream {
	out := make([]upstream, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// deployed configures model to be served by one openai_compatible
// provider per fake, named d0, d1, … in order, of equal weight.
func deployed(c *config.Config, model string, fs []*fakeopenai.Server) {
	m := config.ModelEntry{ID: model}
	for i, f := range fs {
		name := fmt.Sprintf("d%d", i)
		c.Providers = append(c.Providers, config.Provider{Type: config.TypeOpenAICompatible, Name: name, BaseURL: f.URL, APIKey: "test-upstream-key"})
		m.Deployments = append(m.Deployments, config.DeploymentEntry{Provider: name, UpstreamID: model, Weight: 1})
	}
	c.Models.Add = append(c.Models.Add, m)
}

// provider returns the configured provider named name.
func provider(t *testing.T, c *config.Config, name string) *config.Provider {
	for i := range c.Providers {
		if c.Providers[i].Name == name {
			return &c.Providers[i]
		}
	}
	t.Fatalf("no provider %s", name)
	return nil
}
