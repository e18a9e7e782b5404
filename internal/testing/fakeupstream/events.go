package fakeupstream

import (
	"context"
	"net/http"
	"time"
)

// Events writes one event stream: each Send writes a whole event and
// flushes it, pausing a delay between events. Once a write fails (the
// client has gone, a fault cut the stream) every Send fails with that
// error.
type Events struct {
	ctx   context.Context
	w     http.ResponseWriter
	rc    *http.ResponseController
	delay time.Duration
	timer *time.Timer
	sent  int
	err   error
}

// NewEvents starts writing events to w, whose headers the fake has set
// and written, with delay between them.
func NewEvents(w http.ResponseWriter, r *http.Request, delay time.Duration) *Events {
	return &Events{ctx: r.Context(), w: w, rc: http.NewResponseController(w), delay: delay}
}

// Send writes event (the full bytes, "data: …\n\n" and all) and flushes it.
func (e *Events) Send(event []byte) error {
	if e.err != nil {
		return e.err
	}
	if e.sent > 0 && e.delay > 0 && !e.wait() {
		return e.err
	}
	if e.err = e.ctx.Err(); e.err != nil {
		return e.err
	}
	e.sent++
	if _, e.err = e.w.Write(event); e.err == nil {
		e.err = e.rc.Flush()
	}
	return e.err
}

// Err returns the error that stopped the stream, or nil.
func (e *Events) Err() error { return e.err }

func (e *Events) wait() bool {
	if e.timer == nil {
		e.timer = time.NewTimer(e.delay)
	} else {
		e.timer.Reset(e.delay)
	}
	select {
	case <-e.timer.C:
		return true
	case <-e.ctx.Done():
		e.timer.Stop()
		e.err = e.ctx.Err()
		return false
	}
}
