package gateway_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// answered is what a test compares of the model that answered.
type answered struct {
	BodyModel, Header, Deployment string // the body's "model", x-switchyard-model and -deployment
	Model, Requested, Via         string // the record's model, requested model and deployment
	InputPrice                    int64
	Attempts                      int
}

func (r *rig) answered(t *testing.T, a *answer) answered {
	t.Helper()
	if a.err != nil {
		t.Fatalf("answer failed: %v", a.err)
	}
	body := a.body
	if len(a.chunks) > 0 {
		body = a.chunks[0]
	}
	_, model, _ := strings.Cut(body, `"model":"`)
	model, _, _ = strings.Cut(model, `"`)
	rec := r.record(t)
	return answered{model, a.hdr.Get("X-Switchyard-Model"), a.hdr.Get("X-Switchyard-Deployment"),
		rec.Model, rec.RequestedModel, rec.Deployment, rec.InputPrice, rec.Attempts}
}

// Issue 15: when every deployment of a model failed or is cooling down,
// its fallbacks answer in order, each through its own deployments; the
// answer, its headers and its usage record name the model that answered,
// at its prices, and the record notes the model asked for.
func TestFallbacks(t *testing.T) {
	unavailable := step{err: statusErr("x", 503, "")}
	tests := []struct {
		name    string
		a, b, c []step
		cooling bool // m's deployments are all cooling down
		want    answered
		calls   [3]int
	}{
		{"first fallback", []step{unavailable}, []step{unavailable}, []step{unavailable}, false,
			answered{"fb", "fb", "c", "fb", "m", "c/up-c", 7000, 4}, [3]int{1, 1, 2}},
		{"second fallback", []step{unavailable}, []step{unavailable}, []step{unavailable, unavailable, unavailable, unavailable}, false,
			answered{"fb2", "fb2", "b", "fb2", "m", "b/up-b", 9000, 7}, [3]int{1, 2, 4}},
		{"all cooling", nil, nil, nil, true,
			answered{"fb", "fb", "c", "fb", "m", "c/up-c", 7000, 1}, [3]int{0, 0, 1}},
		{"no fallback needed", nil, nil, nil, false,
			answered{"m", "m", "a", "m", "m", "a/up-a", 1000, 1}, [3]int{1, 0, 0}},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{true: " stream"}[stream], func(t *testing.T) {
				r := newRig(t, catalog.Deployment{})
				r.a.steps, r.b.steps, r.c.steps = tt.a, tt.b, tt.c
				if tt.cooling {
					r.health.order = func(ds []route.Deployment) ([]route.Deployment, time.Time, bool) {
						if len(ds) == 3 { // m's
							return nil, time.Now().Add(time.Minute), false
						}
						return ds, time.Time{}, false
					}
				}
				got := r.answered(t, r.serve(context.Background(), "m", stream))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("answer (-want +got):\n%s", diff)
				}
				if c := r.calls(); c != tt.calls {
					t.Errorf("calls %v, want %v", c, tt.calls)
				}
			})
		}
	}
}

// A failure that is the client's own is answered: no fallback either.
func TestNoFallbackForClientErrors(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	r.a.steps = []step{{err: statusErr("a", 400, "")}}
	a := r.serve(context.Background(), "m", false)
	var pe *provider.Error
	if !errors.As(a.err, &pe) || pe.Status != 400 || r.calls() != [3]int{1, 0, 0} {
		t.Errorf("err %v, calls %v: want the 400 after one call", a.err, r.calls())
	}
}

// A prompt too long for the model goes to the first context-window
// fallback with a larger window it may fit: found by the gateway's own
// check (no call to the model) or by the upstream's
// context_length_exceeded. Without such a fallback the check's 400 is
// the answer, with no call and no record.
func TestContextWindowFallbacks(t *testing.T) {
	long := `{"model":"small","messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`
	short := `{"model":"small","messages":[{"role":"user","content":"hi"}]}`
	tooLong := provider.FromStatus("a", 400, nil, []byte(`{"error":{"message":"too long","code":"context_length_exceeded"}}`))
	for _, tt := range []struct {
		name  string
		body  string
		a     []step
		calls [3]int
		want  answered
	}{
		{"pre-check", long, nil, [3]int{0, 1, 0}, answered{"big", "big", "b", "big", "small", "b/up-b", 3000, 1}},
		{"upstream", short, []step{{err: tooLong}}, [3]int{1, 1, 0}, answered{"big", "big", "b", "big", "small", "b/up-b", 3000, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, catalog.Deployment{})
			r.a.steps = tt.a
			got := r.answered(t, r.serveBody(context.Background(), "small", false, tt.body))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if c := r.calls(); c != tt.calls {
				t.Errorf("calls %v, want %v", c, tt.calls)
			}
		})
	}
	t.Run("none larger", func(t *testing.T) {
		r := newRig(t, catalog.Deployment{})
		a := r.serveBody(context.Background(), "tiny", false, strings.Replace(long, "small", "tiny", 1))
		var tl *gateway.ContextTooLong
		if !errors.As(a.err, &tl) || tl.Window != 5 || r.calls() != [3]int{} || len(r.meter.recs) != 0 {
			t.Errorf("err %v, calls %v, %d records: want the pre-check's refusal alone", a.err, r.calls(), len(r.meter.recs))
		}
	})
}

// When the model's attempts fail and every fallback is cooling down, the
// client hears the upstream's failure, not that a fallback was cooling.
func TestFallbacksCoolingReportUpstreamFailure(t *testing.T) {
	r := newRig(t, catalog.Deployment{})
	unavailable := step{err: statusErr("x", 503, "")}
	r.a.steps, r.b.steps, r.c.steps = []step{unavailable}, []step{unavailable}, []step{unavailable}
	r.health.order = func(ds []route.Deployment) ([]route.Deployment, time.Time, bool) {
		if len(ds) == 3 { // m's
			return ds, time.Time{}, false
		}
		return nil, time.Now().Add(time.Minute), false // the fallbacks'
	}
	a := r.serve(context.Background(), "m", false)
	var pe *provider.Error
	if !errors.As(a.err, &pe) || pe.Status != 503 || r.calls() != [3]int{1, 1, 1} {
		t.Errorf("err %v, calls %v: want the upstream's 503 after a, b and c", a.err, r.calls())
	}
}
