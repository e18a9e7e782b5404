package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// observer keeps what a gateway.Observer is told, as lines.
type observer struct {
	g   *gateway.Gateway
	mu  sync.Mutex // guards log
	log []string
}

func (o *observer) note(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log = append(o.log, fmt.Sprintf(format, args...))
}

func (o *observer) Finished(r *meter.Record, us provider.Usage) {
	o.note("finished %s %s %d reasoning=%d streams=%d", r.Model, r.Deployment, r.Status, us.ReasoningTokens, o.g.Streams())
}
func (o *observer) Retry(model, dep string)  { o.note("retry %s %s", model, dep) }
func (o *observer) Fallback(from, to string) { o.note("fallback %s %s", from, to) }
func (o *observer) UpstreamError(p, dep, class string) {
	o.note("upstream error %s %s %s", p, dep, class)
}

// Issue 17: the metrics hear of every failed attempt with its class, of
// each retry and fallback, and of the request's end once; a stream is in
// flight until its writer closes it.
func TestObserver(t *testing.T) {
	unavailable := step{err: statusErr("x", 503, "")}
	tests := []struct {
		name    string
		a, b, c []step
		stream  bool
		want    []string
	}{
		{"retries then a fallback", []step{unavailable}, []step{unavailable}, []step{unavailable}, false, []string{
			"upstream error a a/up-a unavailable", "retry m b/up-b",
			"upstream error b b/up-b unavailable", "retry m c/up-c",
			"upstream error c c/up-c unavailable", "fallback m fb",
			"finished fb c/up-c 200 reasoning=0 streams=0"}},
		{"the client's mistake", []step{{err: statusErr("a", 400, "")}}, nil, nil, false, []string{
			"upstream error a a/up-a client", "finished m a/up-a 502 reasoning=0 streams=0"}},
		{"a stream", nil, nil, nil, true, []string{"finished m a/up-a 200 reasoning=0 streams=1"}},
		{"a stream cut", []step{{cut: errReset}}, nil, nil, true, []string{
			"upstream error a a/up-a reset", "finished m a/up-a 502 reasoning=0 streams=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.a.steps, r.b.steps, r.c.steps = tt.a, tt.b, tt.c
			r.serve(context.Background(), "m", tt.stream)
			if diff := cmp.Diff(tt.want, r.obs.log); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
			if n := r.g.Streams(); n != 0 {
				t.Errorf("%d streams in flight after the request", n)
			}
		})
	}
}
