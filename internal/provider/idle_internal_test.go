package provider

import (
	"testing"
	"time"
)

// Issue 18: a stream's reads no longer move a timer; they note when they
// begin to wait, and the one timer, when it fires, arms itself again
// until a bound has passed. On a fake clock, in steps of a millisecond:
// chunks that keep coming, with the gateway slow between some reads
// (writing to a slow client), never let the timer cut the stream; a read
// that then waits past the idle timeout is cut when it has waited the
// idle timeout, not later; and a started stream is cut at the total.
func TestStreamBodyTimerFakeClock(t *testing.T) {
	const ms = time.Millisecond
	const idle = 100 * ms
	tests := []struct {
		name             string
		firstByte, total time.Duration
		reads            []waitSpan // the last may never end (to: -1)
		until            time.Duration
		wantCut          int32
		wantAt           time.Duration // when the timer cuts
	}{
		{"chunks keep coming", 0, 0, lively(0, 2*time.Second, 30*ms, 5*ms), 2 * time.Second, 0, 0},
		{"slow client between reads", 0, 0, []waitSpan{{0, 10 * ms}, {400 * ms, 490 * ms}, {900 * ms, 999 * ms}},
			time.Second, 0, 0},
		{"silence after chunks", 0, 0, append(lively(0, 500*ms, 30*ms, 5*ms), waitSpan{517 * ms, -1}),
			time.Second, cutIdle, 617 * ms},
		{"silent from the first read", time.Hour, 0, []waitSpan{{3 * ms, -1}}, time.Second, cutIdle, 103 * ms},
		{"first byte late", 50 * ms, time.Hour, []waitSpan{{3 * ms, -1}}, time.Second, cutFirstByte, 50 * ms},
		{"total outlasted", 50 * ms, 700 * ms, lively(0, time.Second, 30*ms, 5*ms), time.Second, cutTotal, 700 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &streamBody{idle: idle, firstByte: tt.firstByte, total: tt.total}
			_, fireAt := b.due(0)
			var cut int32
			var at time.Duration
			arms := 1
			reads := tt.reads
			for now := time.Duration(0); now <= tt.until && cut == 0; now += ms {
				if len(reads) > 0 && now == reads[0].from {
					b.waitFrom.Store(int64(now) + 1)
				}
				if len(reads) > 0 && now == reads[0].to {
					b.waitFrom.Store(0)
					b.started.Store(true) // each read brings bytes
					reads = reads[1:]
				}
				if fireAt == 0 || now < fireAt {
					continue
				}
				var next time.Duration
				if cut, next = b.due(now); cut != 0 {
					at = now
					break
				}
				if next > idle {
					t.Fatalf("at %v the timer is armed %v ahead, more than the idle timeout", now, next)
				}
				fireAt = now + next
				arms++
			}
			if cut != tt.wantCut || at != tt.wantAt {
				t.Errorf("cut %d at %v, want %d at %v", cut, at, tt.wantCut, tt.wantAt)
			}
			// The timer is armed about once an idle timeout, not for
			// each read.
			if max := int(tt.until/idle) + 2; arms > max {
				t.Errorf("timer armed %d times, want at most %d", arms, max)
			}
		})
	}
}

// waitSpan is a read's wait, from its start to the bytes' arrival.
type waitSpan struct{ from, to time.Duration }

// lively returns reads from from to until, each waiting wait, one every
// every.
func lively(from, until, every, wait time.Duration) []waitSpan {
	var s []waitSpan
	for t := from; t+wait < until; t += every {
		s = append(s, waitSpan{t, t + wait})
	}
	return s
}

// fire neither cuts nor re-arms once the body is closed or its request
// is over: a stopped timer stays stopped, and a finished request keeps
// the cause it ended with.
func TestStreamBodyFireAfterEnd(t *testing.T) {
	for _, end := range []string{"closed", "request over"} {
		t.Run(end, func(t *testing.T) {
			done := make(chan struct{})
			cancelled := false
			b := &streamBody{idle: time.Millisecond, start: time.Now().Add(-time.Hour), done: done,
				cancel: func() { cancelled = true }}
			b.timer = time.AfterFunc(time.Hour, func() {})
			b.timer.Stop()
			if end == "closed" {
				b.stop()
			} else {
				close(done)
			}
			b.waitFrom.Store(1) // a read has waited an hour: due to be cut
			b.fire()
			if b.cut.Load() != 0 || cancelled {
				t.Errorf("fire cut a body after its end (cut %d, cancelled %v)", b.cut.Load(), cancelled)
			}
			if b.timer.Stop() {
				t.Error("fire armed the timer again after the body's end")
			}
		})
	}
}
