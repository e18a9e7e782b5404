package fakeupstream

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// errFault is what a fake's writes return once a fault has ended its call.
var errFault = errors.New("fakeupstream: call ended by an injected fault")

// garbage is the invalid event Faults.Garbage sends: well framed, but its
// data is not JSON.
var garbage = []byte("data: {garbage\n\n")

// faultWriter injects the faults that happen after the fake starts to
// answer. A fake writes each stream event with one Write (Events does),
// so counting writes counts events.
type faultWriter struct {
	http.ResponseWriter
	s      *Server
	f      fate
	ctx    context.Context // the fake's request context, cancelled when a fault ends the call
	cancel context.CancelFunc
	client context.Context // the client's request context

	wrote  bool // WriteHeader has been called
	stream bool // the response is an event stream
	events int  // events written
	err    error
}

// faultWriter wraps w for a call with fate f; done releases it.
func (s *Server) faultWriter(w http.ResponseWriter, r *http.Request, f fate) (*faultWriter, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	fw := &faultWriter{ResponseWriter: w, s: s, f: f, ctx: ctx, cancel: cancel, client: r.Context()}
	return fw, cancel
}

// Unwrap lets http.ResponseController reach the connection.
func (fw *faultWriter) Unwrap() http.ResponseWriter { return fw.ResponseWriter }

func (fw *faultWriter) WriteHeader(code int) {
	if fw.wrote {
		fw.ResponseWriter.WriteHeader(code)
		return
	}
	fw.wrote = true
	fw.stream = strings.HasPrefix(fw.Header().Get("Content-Type"), "text/event-stream")
	fw.ResponseWriter.WriteHeader(code)
	ok := code >= 200 && code < 300
	if ok && fw.stream && fw.f.drip > 0 {
		fw.s.counts.drips.Add(1)
	}
	if ok && fw.f.kind == faultStall {
		fw.s.counts.stalls.Add(1)
		http.NewResponseController(fw.ResponseWriter).Flush()
		<-fw.client.Done()
		fw.end()
	}
}

func (fw *faultWriter) Write(b []byte) (int, error) {
	if !fw.wrote {
		fw.WriteHeader(http.StatusOK)
	}
	if fw.err != nil {
		return 0, fw.err
	}
	if !fw.stream {
		return fw.ResponseWriter.Write(b)
	}
	if fw.events == fw.f.after {
		switch fw.f.kind {
		case faultStreamReset:
			fw.s.counts.streamResets.Add(1)
			fw.end()
			Reset(fw.ResponseWriter)
			return 0, fw.err
		case faultGarbage:
			fw.s.counts.garbage.Add(1)
			if _, err := fw.ResponseWriter.Write(garbage); err != nil {
				return 0, err
			}
		}
	}
	if fw.events > 0 && !Sleep(fw.ctx, fw.f.drip) {
		return 0, fw.ctx.Err()
	}
	fw.events++
	return fw.ResponseWriter.Write(b)
}

// FlushError flushes unless a fault has ended the call.
func (fw *faultWriter) FlushError() error {
	if fw.err != nil {
		return fw.err
	}
	return http.NewResponseController(fw.ResponseWriter).Flush()
}

// end makes every later write fail and cancels the fake's context, so
// that a fake waiting on it stops.
func (fw *faultWriter) end() {
	fw.err = errFault
	fw.cancel()
}
