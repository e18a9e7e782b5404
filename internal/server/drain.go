package server

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrShutdown is the cause of a request context cancelled because the
// shutdown grace period ran out: handlers tell it from a client that went
// away with context.Cause.
var ErrShutdown = errors.New("server shutting down")

// Once the grace period is over, the handlers still running are cancelled
// and given cutWait to end by themselves (a stream counts what it sent,
// records it and sends its last event; the first count in a process loads
// the tokenizer, which takes a second or so), then their connections are
// closed, which ends writes to clients that stopped reading, and they get
// up to handlerDrain in all. A handler that outlives it is left behind:
// the process may exit under it, and its usage is what it journaled while
// it ran.
const (
	cutWait      = 4 * time.Second
	handlerDrain = 5 * time.Second
)

// inflight counts the handlers running.
type inflight struct{ n atomic.Int64 }

// wait polls, as http.Server.Shutdown does, until no handler runs or the
// deadline passes, and returns how many still run.
func (f *inflight) wait(deadline time.Time) int64 {
	pause := time.Millisecond
	for {
		n := f.n.Load()
		if n == 0 || !time.Now().Before(deadline) {
			return n
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// cut ends the requests still running after the grace period: it cancels
// their contexts (ending their upstream calls), lets them finish, closes
// the connections and waits for the handlers, within handlerDrain.
func (s *Server) cut() error {
	start := time.Now()
	s.log.Warn("grace period over; cutting the requests still running", "requests", s.active.n.Load())
	s.cancel(ErrShutdown)
	s.active.wait(start.Add(cutWait))
	err := s.srv.Close()
	if n := s.active.wait(start.Add(handlerDrain)); n > 0 {
		s.log.Error("handlers still running after the shutdown drain; their usage may be recorded only as under way",
			"handlers", n, "drain", handlerDrain.String())
	}
	return err
}
