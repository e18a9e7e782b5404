package sse

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// errLineBreak reports data that would end its event early: in SSE a "\r" is a
// line end too.
var errLineBreak = errors.New("sse: data contains a line break")

// Writer writes a client stream: each event is one Write, then a flush, so
// the client sees it at once. After Hold, events are written but not
// flushed: those of one upstream read go out in one flush (issue 18),
// when the caller calls Flush before it waits on anything.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w       http.ResponseWriter
	rc      http.ResponseController
	hdr     [4]string // the values of the headers NewWriter sets
	started bool
	hold    bool      // Hold(true): events wait for Flush
	pending bool      // events were written since the last flush
	err     error     // sticky: a write or flush failed
	buf     []byte    // the event being written; starts in arr
	arr     [512]byte // room for a typical chunk without a second allocation
}

// NewWriter returns a Writer of w. It sets the stream's headers:
// Content-Type: text/event-stream, Cache-Control: no-cache,
// X-Accel-Buffering: no (nginx would otherwise buffer the stream) and, for
// HTTP/1.x requests only, Connection: keep-alive (HTTP/2 forbids it). It does
// not write the status: until the first event, the caller may still send an
// HTTP error instead.
func NewWriter(w http.ResponseWriter, r *http.Request) *Writer {
	sw := &Writer{w: w, rc: *http.NewResponseController(w)}
	sw.buf = sw.arr[:0]
	// The header values live in the Writer: no allocation per header.
	sw.hdr = [...]string{"text/event-stream", "no-cache", "no", "keep-alive"}
	h := w.Header()
	h["Content-Type"], h["Cache-Control"], h["X-Accel-Buffering"] = sw.hdr[0:1:1], sw.hdr[1:2:2], sw.hdr[2:3:3]
	if r != nil && r.ProtoMajor == 1 {
		h["Connection"] = sw.hdr[3:4:4]
	}
	return sw
}

// Data writes "data: " + b + "\n\n" and flushes (unless held). b must
// not contain a line break (JSON from encoding/json never does); if it
// does, Data writes nothing and returns an error.
func (w *Writer) Data(b []byte) error {
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return errLineBreak
	}
	w.buf = append(w.buf[:0], "data: "...)
	w.buf = append(w.buf, b...)
	w.buf = append(w.buf, "\n\n"...)
	return w.send()
}

// Event writes "event: " + name + "\n" + "data: " + b + "\n\n" and
// flushes (unless held): an event clients dispatch by name (Anthropic's
// Messages stream). Neither may contain a line break; if one does, Event
// writes nothing and returns an error.
func (w *Writer) Event(name string, b []byte) error {
	if strings.ContainsAny(name, "\r\n") || bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return errLineBreak
	}
	w.buf = append(w.buf[:0], "event: "...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, "\ndata: "...)
	w.buf = append(w.buf, b...)
	w.buf = append(w.buf, "\n\n"...)
	return w.send()
}

// Done writes "data: [DONE]\n\n", the end of an OpenAI stream, and
// flushes (unless held).
func (w *Writer) Done() error {
	w.buf = append(w.buf[:0], "data: [DONE]\n\n"...)
	return w.send()
}

// Comment writes ": " + s + "\n\n" and flushes (unless held). Clients ignore comments, so
// they serve as keep-alives. s must not contain a line break.
func (w *Writer) Comment(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errLineBreak
	}
	w.buf = append(w.buf[:0], ": "...)
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, "\n\n"...)
	return w.send()
}

// Started reports whether anything has been written, after which the status
// is sent and an HTTP error response is no longer possible.
func (w *Writer) Started() bool { return w.started }

// Hold(true) makes the events written from now on wait for Flush, in the
// connection's buffer (a full buffer still goes out, unflushed): several
// events then share one flush, and one write to the network. The caller
// must Flush before anything that may wait, on the upstream or otherwise,
// and at the end of the stream. Hold(false) makes each event flush
// again; what is already held waits for Flush.
func (w *Writer) Hold(on bool) { w.hold = on }

// Pending reports whether events written wait for Flush.
func (w *Writer) Pending() bool { return w.pending }

// SetWriteDeadline sets the deadline of the writes to the client (and
// of the flushes), through any wrappers of the ResponseWriter that
// implement Unwrap.
func (w *Writer) SetWriteDeadline(t time.Time) error { return w.rc.SetWriteDeadline(t) }

// Err returns the error of the write or flush that failed, if one has:
// the client has gone.
func (w *Writer) Err() error { return w.err }

// Flush flushes the events written since the last flush; with none, it
// does nothing. After a write or flush has failed, Flush, and every
// event written, returns that error.
func (w *Writer) Flush() error {
	if w.err != nil || !w.pending {
		return w.err
	}
	w.pending = false
	if err := w.rc.Flush(); err != nil {
		w.err = fmt.Errorf("flush event: %w", err)
	}
	return w.err
}

// send writes w.buf and, unless held, flushes it through any wrappers of
// the ResponseWriter that implement Unwrap.
func (w *Writer) send() error {
	if w.err != nil {
		return w.err
	}
	w.started = true
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("write event: %w", err)
		return w.err
	}
	w.pending = true
	if w.hold {
		return nil
	}
	return w.Flush()
}
