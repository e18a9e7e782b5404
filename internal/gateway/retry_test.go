package gateway_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

func statusErr(p string, status int, retryAfter string) error {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return provider.FromStatus(p, status, h, []byte(`{"error":{"message":"no"}}`))
}

var (
	errConnect = &provider.Error{Provider: "a", Kind: provider.KindUnavailable,
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	errReset = &provider.Error{Provider: "a", Kind: provider.KindUnavailable, Err: io.ErrUnexpectedEOF}
)

// Issue 15: a failure another deployment may not have is retried there,
// once per failure, and counted against the deployment that failed; a
// failure of the client's own request is answered at once and counts
// against no deployment.
func TestRetryClasses(t *testing.T) {
	tests := []struct {
		name   string
		first  step
		class  string // the failure a's health is told; "" when none
		retry  bool
		stream bool
	}{
		{"408", step{err: statusErr("a", 408, "")}, "timeout", true, false},
		{"429", step{err: statusErr("a", 429, "")}, "rate_limit", true, false},
		{"500", step{err: statusErr("a", 500, "")}, "unavailable", true, false},
		{"502", step{err: statusErr("a", 502, "")}, "unavailable", true, false},
		{"503", step{err: statusErr("a", 503, "")}, "unavailable", true, false},
		{"504", step{err: statusErr("a", 504, "")}, "timeout", true, false},
		{"529", step{err: statusErr("a", 529, "")}, "overloaded", true, false},
		{"connect", step{err: errConnect}, "connect", true, false},
		{"reset", step{err: errReset}, "reset", true, false},
		{"upstream credentials", step{err: statusErr("a", 401, "")}, "auth", true, false},
		{"stream 503", step{err: statusErr("a", 503, "")}, "unavailable", true, true},
		{"stream reset before the first chunk", step{err: errReset, before: true}, "reset", true, true},
		{"400", step{err: statusErr("a", 400, "")}, "", false, false},
		{"404 model", step{err: provider.FromStatus("a", 404, nil, []byte(`{"error":{"code":"model_not_found"}}`))}, "", false, false},
		{"413", step{err: statusErr("a", 413, "")}, "", false, false},
		{"422", step{err: statusErr("a", 422, "")}, "", false, false},
		{"stream 400", step{err: statusErr("a", 400, "")}, "", false, true},
		{"stream 400 before the first chunk", step{err: statusErr("a", 400, ""), before: true}, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.a.steps = []step{tt.first}
			a := r.serve(context.Background(), "m", tt.stream)
			want := []string{"attempt m"}
			if tt.class != "" {
				want = append(want, "failure a/up-a "+tt.class)
			}
			wantCalls, wantAttempts := [3]int{1, 0, 0}, 1
			if tt.retry {
				want = append(want, "retry m", "success b/up-b")
				wantCalls, wantAttempts = [3]int{1, 1, 0}, 2
			}
			if diff := cmp.Diff(want, r.health.events()); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
			if got := r.calls(); got != wantCalls {
				t.Errorf("calls %v, want %v", got, wantCalls)
			}
			rec := r.record(t)
			if rec.Attempts != wantAttempts || a.hdr.Get("X-Switchyard-Attempts") != map[bool]string{true: "2", false: "1"}[tt.retry] {
				t.Errorf("record says %d attempts, header %q; want %d", rec.Attempts, a.hdr.Get("X-Switchyard-Attempts"), wantAttempts)
			}
			switch {
			case tt.retry && (a.err != nil || rec.Status != 200 || rec.Deployment != "b/up-b" || rec.Provider != "b"):
				t.Errorf("retried request: err %v, record %d from %s", a.err, rec.Status, rec.Deployment)
			case !tt.retry && (!errors.Is(a.err, tt.first.err) || rec.Status != 502):
				t.Errorf("client's error: got %v (record %d), want it answered at once", a.err, rec.Status)
			}
			if r.health.inFlight != 0 {
				t.Errorf("%d calls still in flight", r.health.inFlight)
			}
		})
	}
}

// A stream whose first chunk reached the client cannot be retried: it
// ends with the error and a partial record.
func TestStreamCutAfterFirstChunk(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	r.a.steps = []step{{cut: errReset}}
	a := r.serve(context.Background(), "m", true)
	if !errors.Is(a.err, errReset) || len(a.chunks) != 1 {
		t.Errorf("stream: err %v after %d chunks, want the reset after 1", a.err, len(a.chunks))
	}
	if got := r.calls(); got != [3]int{1, 0, 0} {
		t.Errorf("calls %v: a started stream was retried", got)
	}
	rec := r.record(t)
	if rec.Attempts != 1 || rec.Status != 502 || rec.CompletionTokens != 1 {
		t.Errorf("record: %d attempts, status %d, %d completion tokens; want 1, 502, the partial 1", rec.Attempts, rec.Status, rec.CompletionTokens)
	}
	want := []string{"attempt m", "success a/up-a", "failure a/up-a reset"}
	if diff := cmp.Diff(want, r.health.events()); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
}

// The gateway's own timeout: a stream's first chunk that does not come in
// time is retried elsewhere. The first byte's bound is not a plain
// call's: its answer comes whole, when it is written, and a long one is
// not a stall. (The whole call's timeout is the adapter's, retried as
// any KindTimeout failure.)
func TestFirstByteTimeoutRetried(t *testing.T) {
	t.Run("plain answer slower than the first byte's bound", func(t *testing.T) {
		r := newRig(t, catalog.Deployment{FirstByteTimeout: time.Millisecond, Timeout: time.Hour})
		r.a.steps = []step{{delay: 50 * time.Millisecond}}
		if a := r.serve(context.Background(), "m", false); a.err != nil || r.calls() != [3]int{1, 0, 0} {
			t.Fatalf("err %v, calls %v: want a's answer", a.err, r.calls())
		}
	})
	for _, tt := range []struct {
		stream bool
		dep    catalog.Deployment
		class  string
	}{
		{true, catalog.Deployment{FirstByteTimeout: time.Millisecond, Timeout: time.Hour}, "first_byte_timeout"},
	} {
		t.Run(map[bool]string{false: "plain", true: "stream"}[tt.stream], func(t *testing.T) {
			r := newRig(t, tt.dep)
			r.a.steps = []step{{block: true}}
			a := r.serve(context.Background(), "m", tt.stream)
			if a.err != nil || r.calls() != [3]int{1, 1, 0} {
				t.Fatalf("err %v, calls %v: want the answer from b", a.err, r.calls())
			}
			want := []string{"attempt m", "failure a/up-a " + tt.class, "retry m", "success b/up-b"}
			if diff := cmp.Diff(want, r.health.events()); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
		})
	}
}

// The retries after the first attempt are at most Routing.Retries (2),
// cycling through the order; the waits grow within their caps.
func TestRetriesBounded(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	r.a.steps = []step{{err: statusErr("a", 503, "")}, {err: statusErr("a", 503, "")}, {err: statusErr("a", 503, "")}, {}}
	a := r.serve(context.Background(), "one", false)
	if got := r.calls(); got != [3]int{3, 0, 0} {
		t.Errorf("calls %v, want 3 on the only deployment", got)
	}
	if a.err == nil || r.record(t).Attempts != 3 {
		t.Errorf("err %v, want the last failure after 3 attempts", a.err)
	}
	if len(r.waits) != 2 || r.waits[0] > 100*time.Millisecond || r.waits[1] > 200*time.Millisecond {
		t.Errorf("waits %v, want 2 within 100ms and 200ms", r.waits)
	}
}

// A retry skips the deployments that began to cool down after the
// request's order was made, by other requests' failures or this one's: a
// cooling deployment gets no call while another may answer. When every
// one is cooling, the order is kept (nothing else could answer; the
// budget bounds the calls).
func TestRetrySkipsCooling(t *testing.T) {
	fail := step{err: statusErr("a", 503, "")}
	for _, tt := range []struct {
		name  string
		model string
		cools []string // the deployments that cool once a has been called
		calls [3]int
		want  string // the model that answers
	}{
		{"b cools", "m", []string{"b/up-b"}, [3]int{1, 0, 1}, "m"},
		{"b and c cool", "m", []string{"b/up-b", "c/up-c"}, [3]int{2, 0, 0}, "m"},
		// Every deployment of solo cooling: its fallback answers (fb, on
		// c), without more calls to solo's.
		{"all cool, fallback healthy", "solo", []string{"a/up-a"}, [3]int{1, 0, 1}, "fb"},
		// No fallback, or none healthy: the order is kept, nothing else
		// could answer.
		{"all cool, no fallback", "one", []string{"a/up-a"}, [3]int{2, 0, 0}, "one"},
		{"all cool, fallbacks too", "m", []string{"a/up-a", "b/up-b", "c/up-c"}, [3]int{1, 1, 0}, "m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.a.steps = []step{fail}
			r.health.cooling = func(key string) bool { return slices.Contains(tt.cools, key) && len(r.a.requests()) > 0 }
			a := r.serve(context.Background(), tt.model, false)
			if a.err != nil || r.calls() != tt.calls || r.record(t).Model != tt.want {
				t.Errorf("err %v, calls %v, answered by %s; want calls %v and %s", a.err, r.calls(), r.record(t).Model, tt.calls, tt.want)
			}
		})
	}
}

// An upstream's Retry-After is waited before the same deployment is tried
// again, up to MaxRetryAfter (5s); a longer one ends the attempts.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		retryAfter string
		wantCalls  int
		wantWait   time.Duration
	}{
		{"3", 2, 3 * time.Second},
		{"5", 2, 5 * time.Second},
		{"6", 1, 0},
		{"60", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.retryAfter, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.a.steps = []step{{err: statusErr("a", 429, tt.retryAfter)}}
			a := r.serve(context.Background(), "one", false)
			if got := r.calls()[0]; got != tt.wantCalls {
				t.Fatalf("%d calls, want %d", got, tt.wantCalls)
			}
			if tt.wantCalls == 1 {
				var pe *provider.Error
				if !errors.As(a.err, &pe) || pe.Kind != provider.KindRateLimit || len(r.waits) != 0 {
					t.Errorf("err %v after waits %v, want the 429 at once", a.err, r.waits)
				}
				return
			}
			if a.err != nil || len(r.waits) != 1 || r.waits[0] < tt.wantWait {
				t.Errorf("err %v, waits %v: want the answer after at least %v", a.err, r.waits, tt.wantWait)
			}
		})
	}
}

// Retries beyond the retry budget are not made: the failure is answered.
func TestRetryBudgetStopsRetries(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	r.health.budget = 0
	r.a.steps = []step{{err: statusErr("a", 503, "")}}
	a := r.serve(context.Background(), "one", false)
	if a.err == nil || r.calls() != [3]int{1, 0, 0} || r.record(t).Attempts != 1 {
		t.Errorf("err %v, calls %v: want the 503 after one call", a.err, r.calls())
	}
	want := []string{"attempt one", "failure a/up-a unavailable", "no retry one"}
	if diff := cmp.Diff(want, r.health.events()); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
}

// A client that goes away cancels the call; nothing is retried and the
// deployment is not blamed.
func TestClientGoneNotCounted(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "stream"}[stream], func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			ctx, cancel := context.WithCancel(context.Background())
			r.a.steps = []step{{block: true}}
			go func() {
				for len(r.a.requests()) == 0 {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			a := r.serve(ctx, "m", stream)
			var pe *provider.Error
			if !errors.As(a.err, &pe) || pe.Kind != provider.KindCanceled {
				t.Errorf("err %v, want the cancelled call's", a.err)
			}
			if diff := cmp.Diff([]string{"attempt m"}, r.health.events()); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
			if r.calls() != [3]int{1, 0, 0} || r.record(t).Attempts != 1 {
				t.Errorf("calls %v: a gone client's request was retried", r.calls())
			}
		})
	}
}

// With every deployment cooling down after an upstream's rate limiting
// the answer comes at once, with no upstream call: the upstream said when
// to come back.
func TestAllCoolingByRateLimit(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	until := time.Now().Add(20 * time.Second)
	r.health.order = func(ds []route.Deployment) ([]route.Deployment, time.Time, bool) { return nil, until, true }
	a := r.serve(context.Background(), "one", false)
	var nd *gateway.NoDeployment
	if !errors.As(a.err, &nd) || nd.Model != "one" || !nd.RateLimited ||
		nd.RetryAfter <= 10*time.Second || nd.RetryAfter > 20*time.Second {
		t.Fatalf("err %#v, want NoDeployment for one, rate limited, ~20s", a.err)
	}
	if r.calls() != [3]int{} || r.record(t).Attempts != 0 || len(r.health.events()) != 0 {
		t.Errorf("calls %v, health %v: want none", r.calls(), r.health.events())
	}
	if !strings.Contains(nd.Error(), "one") {
		t.Errorf("error %q", nd.Error())
	}
}

// With every deployment of the model and of its fallbacks cooling down
// after failures, the gateway does not turn its own guess into an outage
// (Envoy's "panic" routing): the requested model's deployments are tried
// regardless, in the order of their tiers and strategy (Rank: here c, b,
// a), with the usual retries and budget.
func TestAllCoolingByFailuresPanics(t *testing.T) {
	for _, tt := range []struct {
		name  string
		c     []step
		calls [3]int
		err   bool
	}{
		{"c answers", nil, [3]int{0, 0, 1}, false},
		{"c fails, b answers", []step{{err: statusErr("c", 503, "")}}, [3]int{0, 1, 1}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.c.steps = tt.c
			until := time.Now().Add(20 * time.Second)
			r.health.order = func(ds []route.Deployment) ([]route.Deployment, time.Time, bool) { return nil, until, false }
			r.health.rank = func(ds []route.Deployment) []route.Deployment {
				ds = slices.Clone(ds)
				slices.Reverse(ds)
				return ds
			}
			a := r.serve(context.Background(), "m", false)
			if (a.err != nil) != tt.err || r.calls() != tt.calls {
				t.Fatalf("err %v, calls %v; want calls %v", a.err, r.calls(), tt.calls)
			}
			if rec := r.record(t); rec.Model != "m" || rec.Attempts != tt.calls[0]+tt.calls[1]+tt.calls[2] {
				t.Errorf("record model %s after %d attempts", rec.Model, rec.Attempts)
			}
		})
	}
}

// A client that goes away while the gateway waits to retry gets no
// answer but its own going (499), not the failure before.
func TestClientGoneDuringBackoff(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	ctx, cancel := context.WithCancel(context.Background())
	r.g.SetWait(func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	})
	r.a.steps = []step{{err: statusErr("a", 503, "")}}
	a := r.serve(ctx, "m", false)
	var pe *provider.Error
	if !errors.As(a.err, &pe) || pe.Kind != provider.KindCanceled || r.calls() != [3]int{1, 0, 0} {
		t.Errorf("err %v, calls %v: want the client's going after one call", a.err, r.calls())
	}
}
