package fakeupstream

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Faults are failures a fake injects into the calls it serves, each at a
// rate (0 to 1). A call gets at most one of Errors, Reset, Stall,
// StreamReset and Garbage (their rates add up to at most 1), and may
// besides get a Spike and a Drip. The zero Faults injects nothing.
//
// Faults come before the fake looks at the request: a call with an
// injected error or reset is not checked, and a bad key still gets the
// injected 503. Stall needs a 2xx answer; StreamReset, Garbage and Drip
// need an event stream that long. A fault drawn for a call it does not
// fit is not injected and not counted.
type Faults struct {
	// Seed, when not 0, makes the draws deterministic: the n-th call the
	// server receives gets the same fault in every run, so a test can
	// assert exact counts. With 0 the seed is random.
	Seed uint64
	// Errors answer with a status in the provider's own error shape
	// (Anthropic's 529 overloaded_error, Gemini's 503 UNAVAILABLE,
	// OpenAI's error object), each at its rate.
	Errors []ErrorFault
	// Reset is the rate of calls whose connection is reset (TCP RST)
	// before the first byte of the response.
	Reset float64
	// Stall is the rate of calls that get their response headers and then
	// nothing until the client goes away.
	Stall float64
	// StreamReset resets the connection of a stream after After events.
	StreamReset StreamFault
	// Garbage sends an event that is not valid JSON ("data: {garbage")
	// after After events, then the rest of the stream.
	Garbage StreamFault
	// Spike adds Delay before the response, on top of the fake's latency.
	Spike DelayFault
	// Drip waits Delay before each event of a stream after the first, on
	// top of the fake's token delay.
	Drip DelayFault
}

// ErrorFault answers Rate of the calls with Status.
type ErrorFault struct {
	Rate       float64
	Status     int    // 400 to 599
	RetryAfter string // the Retry-After header, e.g. "1"; "" for the provider's default
}

// StreamFault cuts into Rate of the streams after After events (0: right
// after the headers).
type StreamFault struct {
	Rate  float64
	After int
}

// DelayFault slows Rate of the calls by Delay.
type DelayFault struct {
	Rate  float64
	Delay time.Duration
}

// Stats counts the calls a server received and the faults it injected.
type Stats struct {
	Calls        int64         // requests received, faulted or not
	Errors       map[int]int64 // injected error responses by status
	Resets       int64         // connections reset before the first byte
	Stalls       int64         // responses stalled after their headers
	StreamResets int64         // streams reset midway
	Garbage      int64         // streams given an invalid event
	Spikes       int64         // calls delayed by Spike
	Drips        int64         // streams slowed by Drip
}

// faultCounts are the counters behind Stats.
type faultCounts struct {
	resets, stalls, streamResets, garbage, spikes, drips atomic.Int64

	mu sync.Mutex
	// mu guards the following.
	errors map[int]int64
}

// SetFaults makes the server inject f from the next call on, replacing
// the faults set before; SetFaults(Faults{}) stops injecting. It is safe
// to call while requests are served, and panics on a rate outside 0 to 1,
// exclusive rates adding up to more than 1, a status outside 400 to 599,
// or a negative delay or event count: a test's mistake, not a condition.
func (s *Server) SetFaults(f Faults) {
	if err := f.check(); err != nil {
		panic(fmt.Sprintf("%s: SetFaults: %v", s.cfg.Name, err))
	}
	if f.isZero() {
		s.faults.Store(nil)
		return
	}
	seed := f.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	s.faults.Store(&faultState{f: f, rnd: rand.New(rand.NewPCG(seed, seed))})
}

// Stats returns the counts so far; they survive SetFaults.
func (s *Server) Stats() Stats {
	c := &s.counts
	st := Stats{
		Calls: s.calls.Load(), Resets: c.resets.Load(), Stalls: c.stalls.Load(),
		StreamResets: c.streamResets.Load(), Garbage: c.garbage.Load(),
		Spikes: c.spikes.Load(), Drips: c.drips.Load(),
	}
	c.mu.Lock()
	st.Errors = maps.Clone(c.errors)
	c.mu.Unlock()
	if st.Errors == nil {
		st.Errors = map[int]int64{}
	}
	return st
}

func (f *Faults) check() error {
	sum := f.Reset + f.Stall + f.StreamReset.Rate + f.Garbage.Rate
	rates := []float64{f.Reset, f.Stall, f.StreamReset.Rate, f.Garbage.Rate, f.Spike.Rate, f.Drip.Rate}
	for _, e := range f.Errors {
		if e.Status < 400 || e.Status > 599 {
			return fmt.Errorf("error status %d is not 400 to 599", e.Status)
		}
		sum += e.Rate
		rates = append(rates, e.Rate)
	}
	for _, r := range rates {
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("rate %v is not 0 to 1", r)
		}
	}
	switch {
	case sum > 1+1e-9:
		return fmt.Errorf("errors, resets, stalls and garbage add up to rate %v, more than 1", sum)
	case f.StreamReset.After < 0 || f.Garbage.After < 0:
		return fmt.Errorf("negative event count")
	case f.Spike.Delay < 0 || f.Drip.Delay < 0:
		return fmt.Errorf("negative delay")
	}
	return nil
}

func (f *Faults) isZero() bool {
	return len(f.Errors) == 0 && f.Reset == 0 && f.Stall == 0 && f.StreamReset.Rate == 0 &&
		f.Garbage.Rate == 0 && f.Spike.Rate == 0 && f.Drip.Rate == 0
}

// faultState is the faults in force and the draws they are decided by.
type faultState struct {
	f Faults

	mu sync.Mutex
	// mu guards the following.
	rnd *rand.Rand
}

type faultKind uint8

const (
	faultNone faultKind = iota
	faultReset
	faultStall
	faultStreamReset
	faultGarbage
)

// fate is what one call gets.
type fate struct {
	err   *ErrorFault
	kind  faultKind
	after int           // events before a stream fault
	spike time.Duration // added latency
	drip  time.Duration // added delay between events
}

// draw decides the next call's fate. Every call draws three numbers, so
// that with a seed the n-th call's fate does not depend on the others'.
func (s *Server) draw() fate {
	st := s.faults.Load()
	if st == nil {
		return fate{}
	}
	st.mu.Lock()
	u, spike, drip := st.rnd.Float64(), st.rnd.Float64(), st.rnd.Float64()
	st.mu.Unlock()
	f := &st.f
	var out fate
	if spike < f.Spike.Rate {
		out.spike = f.Spike.Delay
		s.counts.spikes.Add(1)
	}
	if drip < f.Drip.Rate {
		out.drip = f.Drip.Delay
	}
	for i := range f.Errors {
		if u -= f.Errors[i].Rate; u < 0 {
			out.err = &f.Errors[i]
			return out
		}
	}
	rates := [...]float64{faultReset: f.Reset, faultStall: f.Stall, faultStreamReset: f.StreamReset.Rate, faultGarbage: f.Garbage.Rate}
	for k := faultReset; k <= faultGarbage; k++ {
		if u -= rates[k]; u < 0 {
			out.kind = k
			break
		}
	}
	switch out.kind {
	case faultStreamReset:
		out.after = f.StreamReset.After
	case faultGarbage:
		out.after = f.Garbage.After
	}
	return out
}

func (c *faultCounts) countError(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.errors == nil {
		c.errors = map[int]int64{}
	}
	c.errors[status]++
}
