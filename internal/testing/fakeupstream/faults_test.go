package fakeupstream_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// long is a delay no test waits out: a call it holds fails at the
// client's deadline, short.
const long, short = time.Minute, 300 * time.Millisecond

func TestNoFaults(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		c := newClient(t)
		for _, stream := range []bool{false, true} {
			res := do(context.Background(), c, f, stream)
			if res.err != nil || res.status != 200 {
				t.Fatalf("stream %v: %d %v %s", stream, res.status, res.err, res.body)
			}
			if stream && !bytes.Contains(res.body, []byte(f.end)) {
				t.Errorf("stream ends without %s: %s", f.end, res.body)
			}
		}
		want := fakeupstream.Stats{Calls: 2, Errors: map[int]int64{}}
		if diff := cmp.Diff(want, f.srv.Stats()); diff != "" {
			t.Errorf("stats (-want +got):\n%s", diff)
		}
	})
}

// TestErrors: each fake answers an injected status in its own shape, with
// the fault's Retry-After.
func TestErrors(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		c := newClient(t)
		for _, status := range []int{429, 500, 502, 503, 504, 529, f.status} {
			f.srv.SetFaults(fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: 1, Status: status, RetryAfter: "1"}}})
			for _, stream := range []bool{false, true} {
				res := do(context.Background(), c, f, stream)
				if res.err != nil || res.status != status {
					t.Fatalf("status %d stream %v: got %d %v", status, stream, res.status, res.err)
				}
				if got := res.header.Get("Retry-After"); got != "1" {
					t.Errorf("status %d: Retry-After %q, want 1", status, got)
				}
				if kind := gjson.GetBytes(res.body, f.errorField).Str; kind == "" {
					t.Errorf("status %d: no %s in %s", status, f.errorField, res.body)
				}
			}
		}
		f.srv.SetFaults(fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: 1, Status: f.status}}})
		res := do(context.Background(), c, f, false)
		if got := gjson.GetBytes(res.body, f.errorField).Str; got != f.overloaded {
			t.Errorf("%d: %s = %q, want %q (%s)", f.status, f.errorField, got, f.overloaded, res.body)
		}
		// f.status is in the list too: 2 + 2 + 1 calls.
		if got := f.srv.Stats().Errors[f.status]; got != 5 {
			t.Errorf("stats: %d injected %ds, want 5", got, f.status)
		}
	})
}

// TestErrorRatesSeeded: with a seed, the mix of statuses over n calls is
// the same in every run and matches the counters.
func TestErrorRatesSeeded(t *testing.T) {
	t.Parallel()
	faults := fakeupstream.Faults{Seed: 42, Errors: []fakeupstream.ErrorFault{{Rate: 0.1, Status: 503}, {Rate: 0.2, Status: 429}}}
	var runs []map[int]int64
	for range 2 {
		f := fakes(t)[0]
		f.srv.SetFaults(faults)
		c := newClient(t)
		seen := map[int]int64{}
		for range 200 {
			res := do(context.Background(), c, f, false)
			if res.err != nil {
				t.Fatal(res.err)
			}
			seen[res.status]++
		}
		st := f.srv.Stats()
		if diff := cmp.Diff(map[int]int64{503: seen[503], 429: seen[429]}, st.Errors); diff != "" {
			t.Errorf("stats differ from what the client saw (-saw +stats):\n%s", diff)
		}
		if st.Calls != 200 || f.srv.Calls() != 200 || seen[200]+seen[503]+seen[429] != 200 {
			t.Errorf("calls %d/%d, statuses %v", st.Calls, f.srv.Calls(), seen)
		}
		if seen[503] == 0 || seen[429] <= seen[503] || seen[200] < 100 {
			t.Errorf("statuses %v far from 10%% 503, 20%% 429", seen)
		}
		runs = append(runs, seen)
	}
	if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
		t.Errorf("same seed, other statuses (-first +second):\n%s", diff)
	}
}

// TestReset: the connection drops before any response; a fake counts it.
func TestReset(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		f.srv.SetFaults(fakeupstream.Faults{Reset: 1})
		for _, stream := range []bool{false, true} {
			if res := do(context.Background(), newClient(t), f, stream); res.err == nil {
				t.Errorf("stream %v: got a response %d %s", stream, res.status, res.body)
			}
		}
		if st := f.srv.Stats(); st.Resets != 2 || st.Calls != 2 {
			t.Errorf("stats %+v, want 2 resets of 2 calls", st)
		}
	})
}

// TestStall: the headers come, then nothing until the client gives up.
func TestStall(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		f.srv.SetFaults(fakeupstream.Faults{Stall: 1})
		for _, stream := range []bool{false, true} {
			res := do(within(t, short), newClient(t), f, stream)
			if res.status != 200 || !errors.Is(res.err, context.DeadlineExceeded) || len(res.body) > 0 {
				t.Errorf("stream %v: %d %v %q, want headers and then nothing", stream, res.status, res.err, res.body)
			}
		}
		if st := f.srv.Stats(); st.Stalls != 2 {
			t.Errorf("stats %+v, want 2 stalls", st)
		}
	})
}

// TestStreamReset: a stream is cut after two events; a plain answer is
// not touched and not counted.
func TestStreamReset(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		f.srv.SetFaults(fakeupstream.Faults{StreamReset: fakeupstream.StreamFault{Rate: 1, After: 2}})
		c := newClient(t)
		if res := do(context.Background(), c, f, false); res.err != nil || res.status != 200 {
			t.Fatalf("plain answer: %d %v", res.status, res.err)
		}
		res := do(context.Background(), newClient(t), f, true)
		// A reset may drop what the client had not read yet: at most
		// two events, never the end.
		if res.status != 200 || res.err == nil || res.events > 2 || bytes.Contains(res.body, []byte(f.end)) {
			t.Errorf("stream: %d %v, %d events %s", res.status, res.err, res.events, res.body)
		}
		if st := f.srv.Stats(); st.StreamResets != 1 {
			t.Errorf("stats %+v, want 1 stream reset", st)
		}
	})
}

// TestGarbage: one invalid event after the first, then the whole stream.
func TestGarbage(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		f.srv.SetFaults(fakeupstream.Faults{Garbage: fakeupstream.StreamFault{Rate: 1, After: 1}})
		c := newClient(t)
		plain := do(context.Background(), c, f, false)
		res := do(context.Background(), c, f, true)
		if plain.err != nil || !gjson.ValidBytes(plain.body) {
			t.Errorf("plain answer: %v %s", plain.err, plain.body)
		}
		if res.err != nil || bytes.Count(res.body, []byte("data: {garbage\n\n")) != 1 || !bytes.Contains(res.body, []byte(f.end)) {
			t.Errorf("stream: %v %s", res.err, res.body)
		}
		if first, _, _ := bytes.Cut(res.body, []byte("{garbage")); !bytes.Contains(first, []byte("data:")) {
			t.Errorf("garbage came first: %s", res.body)
		}
		if st := f.srv.Stats(); st.Garbage != 1 {
			t.Errorf("stats %+v, want 1 garbage", st)
		}
	})
}

// TestSlow: a spike holds the answer, a drip holds a stream after its
// first event; neither holds a call it does not draw.
func TestSlow(t *testing.T) {
	eachFake(t, func(t *testing.T, f fake) {
		f.srv.SetFaults(fakeupstream.Faults{Spike: fakeupstream.DelayFault{Rate: 1, Delay: long}})
		if res := do(within(t, short), newClient(t), f, false); !errors.Is(res.err, context.DeadlineExceeded) || res.status != 0 {
			t.Errorf("spike: %d %v, want no answer", res.status, res.err)
		}
		f.srv.SetFaults(fakeupstream.Faults{Drip: fakeupstream.DelayFault{Rate: 1, Delay: long}})
		if res := do(context.Background(), newClient(t), f, false); res.err != nil || res.status != 200 {
			t.Errorf("drip on a plain answer: %d %v", res.status, res.err)
		}
		res := do(within(t, short), newClient(t), f, true)
		if res.status != 200 || res.events != 1 || !errors.Is(res.err, context.DeadlineExceeded) {
			t.Errorf("drip: %d %v, %d events, want 1 and a wait", res.status, res.err, res.events)
		}
		if st := f.srv.Stats(); st.Spikes != 1 || st.Drips != 1 {
			t.Errorf("stats %+v, want 1 spike and 1 drip", st)
		}
	})
}

// TestSetFaultsConcurrent: faults change while calls are served (run
// with -race); every call is counted.
func TestSetFaultsConcurrent(t *testing.T) {
	t.Parallel()
	f := fakes(t)[1]
	c := newClient(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				do(context.Background(), c, f, i%2 == 0)
			}
		})
	}
	for i := range 50 {
		f.srv.SetFaults(fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: float64(i%3) / 4, Status: 503}}, Garbage: fakeupstream.StreamFault{Rate: 0.2}})
	}
	wg.Wait()
	if got := f.srv.Calls(); got != 160 {
		t.Errorf("calls %d, want 160", got)
	}
}

func TestSetFaultsRefuses(t *testing.T) {
	t.Parallel()
	f := fakes(t)[2]
	for _, bad := range []fakeupstream.Faults{
		{Reset: 1.5},
		{Stall: -0.1},
		{Errors: []fakeupstream.ErrorFault{{Rate: 0.5, Status: 200}}},
		{Errors: []fakeupstream.ErrorFault{{Rate: 0.6, Status: 503}}, Reset: 0.6},
		{StreamReset: fakeupstream.StreamFault{Rate: 0.1, After: -1}},
		{Spike: fakeupstream.DelayFault{Rate: 0.1, Delay: -time.Second}},
	} {
		t.Run(fmt.Sprintf("%+v", bad), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f.srv.SetFaults(bad)
		})
	}
	f.srv.SetFaults(fakeupstream.Faults{})
	if res := do(context.Background(), newClient(t), f, false); res.status != http.StatusOK {
		t.Errorf("after refusals: %d %v", res.status, res.err)
	}
}
