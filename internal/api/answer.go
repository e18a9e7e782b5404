package api

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// answer writes a model request's answer in OpenAI's shapes: the
// gateway.Writer of the /v1 endpoints.
type answer struct {
	h *Handler
	w http.ResponseWriter
	r *http.Request
	// embeddings reports an embeddings answer, whose vectors are encoded
	// as the client asked: base64 or float arrays.
	embeddings, base64 bool
	// dialect frames errors and streams; nil: OpenAI's.
	dialect dialect
	// out is the stream being relayed, for its wait hook.
	out relayOut
	// reading: an upstream's body is being read through the wait hook
	// (provider.WaitHook's Reading).
	reading bool
	// awaiting: the stream waits in its Await (provider.Awaiter), whose
	// frames are shallow, so the wait hook may flush the response's head
	// there (Wait).
	awaiting bool
}

// dialect is what differs between the APIs the gateway serves in how
// they answer: the error body, and a stream's events and end.
type dialect interface {
	// writeError writes e as the whole response.
	writeError(w http.ResponseWriter, r *http.Request, e *Error)
	// event writes one event of a stream, data being its JSON.
	event(sw *sse.Writer, data []byte) error
	// done ends a stream that completed.
	done(sw *sse.Writer) error
	// errorEvent ends a stream that failed after it started.
	errorEvent(sw *sse.Writer, r *http.Request, e *Error) error
}

// openAI is the dialect of the OpenAI-compatible endpoints.
type openAI struct{}

func (openAI) writeError(w http.ResponseWriter, _ *http.Request, e *Error) { WriteError(w, e) }
func (openAI) event(sw *sse.Writer, data []byte) error                     { return sw.Data(data) }
func (openAI) done(sw *sse.Writer) error                                   { return sw.Done() }

func (openAI) errorEvent(sw *sse.Writer, _ *http.Request, e *Error) error {
	return sw.Data(e.Body()[:len(e.Body())-1]) // without the newline
}

// d returns the answer's dialect.
func (a *answer) d() dialect {
	if a.dialect == nil {
		return openAI{}
	}
	return a.dialect
}

var _ gateway.Writer = (*answer)(nil)

func (a *answer) Header() http.Header { return a.w.Header() }

// Error writes err's client form, after recording it.
func (a *answer) Error(err error, end gateway.Ender) {
	e := errorFor(a.r, a.w.Header(), err)
	end.End(gateway.Outcome{Status: e.Status, ErrType: e.Type, Cancelled: e.Status == statusClientClosed || shuttingDown(a.r)})
	if e.Status == statusClientClosed {
		a.w.WriteHeader(statusClientClosed)
		return
	}
	a.d().writeError(a.w, a.r, e)
}

// Response writes a complete answer, recorded first.
func (a *answer) Response(resp *provider.Response, end gateway.Ender) {
	if a.embeddings {
		b, err := encodeEmbeddings(resp.Body, a.base64)
		if err != nil {
			a.h.opt.Log.Warn("upstream answer unusable", "id", server.RecordFrom(a.r.Context()).ID, "err", err)
			a.Error(err, end)
			return
		}
		resp.Body = b
	}
	end.End(gateway.Outcome{Status: http.StatusOK})
	w := a.w
	vals := []string{"application/json", strconv.Itoa(len(resp.Body))} // one slice for both
	h := w.Header()
	h["Content-Type"], h["Content-Length"] = vals[0:1:1], vals[1:2:2]
	w.WriteHeader(http.StatusOK)
	w.Write(resp.Body)
}

// Stream relays a stream to the client chunk by chunk. While an
// upstream's body is read through the wait hook (serveModel installs it),
// events are held and flushed before each read of the body, so the events
// of one upstream read go out in one flush (issue 18); any other stream,
// such as the mock's, is flushed event by event.
// A failure before the first byte is an ordinary JSON error with a status;
// after it, a final error event (OpenAI: data: {"error":…}) and no end
// of stream ([DONE], message_stop).
//
// The usage is recorded before the stream's last bytes are written: at
// [DONE], before the error event, or when the client has gone (partial
// usage, flagged cancelled). A stream the gateway's shutdown cut sends its
// error event first and is recorded right after, as partial usage.
func (a *answer) Stream(st provider.Stream, end gateway.Ender) {
	w, r := a.w, a.r
	defer st.Close()
	sw := sse.NewWriter(w, r)
	a.out = relayOut{sw: sw, now: a.out.now}
	sw.Hold(a.reading)
	defer a.out.flush() // the end: an error event
	// The stream idles in Await, whose frames are fewer and smaller than
	// Next's: the stack it keeps while it waits is smaller, and the wait
	// hook may write the response's head there (issue 18).
	aw, _ := st.(provider.Awaiter)
	for {
		if aw != nil {
			a.awaiting = true
			aw.Await()
			a.awaiting = false
		}
		if !a.relayNext(st, sw, end) {
			return
		}
	}
}

// relayNext relays the stream's next chunk, or ends the stream, and
// reports whether there is more. It has a frame of its own, off the
// stack while the stream waits in Await (issue 18).
func (a *answer) relayNext(st provider.Stream, sw *sse.Writer, end gateway.Ender) bool {
	chunk, err := st.Next()
	if errors.Is(err, io.EOF) && sw.Err() == nil {
		a.streamDone(sw, end)
		return false
	}
	// A failure: what is held goes out first, before the error event
	// and the record. A held flush that failed, in the wait hook or
	// here, is the client gone, and err, if the hook's, is only its
	// echo.
	if err != nil && a.out.flush() != nil {
		end.End(gateway.Outcome{Status: statusClientClosed, Cancelled: true})
		return false
	}
	if err != nil {
		a.streamFailed(sw, err, end)
		return false
	}
	a.out.refresh()
	if err := a.d().event(sw, chunk); err != nil {
		// The client went away; closing the stream cancels upstream.
		end.End(gateway.Outcome{Status: statusClientClosed, Cancelled: true})
		return false
	}
	return true
}

// streamDone ends a stream that completed. The usage is recorded before
// the client can see the end ([DONE], message_stop), and the events still
// held (those of the upstream's last read: the finish chunk, often) go out
// with it in one flush rather than one each side of the record: recording
// waits on nothing (the meter queues the record and journals it to a
// local file), and the upstream has nothing more to send. That flush is
// not left for net/http's terminating chunk, which waits on the rest of
// the request's work (the limits settled, maybe on Redis; the access
// log): a client that acts on [DONE] sees it at once. A dialect whose end
// waits (a Responses answer stored first) flushes before it. A final flush
// that fails comes too late to change the record: the answer was complete.
func (a *answer) streamDone(sw *sse.Writer, end gateway.Ender) {
	end.End(gateway.Outcome{Status: http.StatusOK})
	if !sw.Started() {
		a.w.WriteHeader(http.StatusOK)
	}
	a.out.refresh()
	a.d().done(sw)
	a.out.flush()
}

// streamFailed ends a stream that failed: with an HTTP error before its
// first byte, else with an error event.
func (a *answer) streamFailed(sw *sse.Writer, err error, end gateway.Ender) {
	w, r := a.w, a.r
	if !sw.Started() {
		resetStreamHeaders(w)
		a.Error(err, end)
		return
	}
	a.h.opt.Log.Warn("stream failed after it started", "id", server.RecordFrom(r.Context()).ID, "err", err)
	e, cut := errorFor(r, w.Header(), err), r.Context().Err() != nil
	gone := cut && !shuttingDown(r)
	if gone {
		e.Status, e.Type = statusClientClosed, ""
	}
	out := gateway.Outcome{Status: e.Status, ErrType: e.Type, Cancelled: cut}
	if cut && !gone {
		// Shutdown: the connection closes soon, and counting the
		// partial usage may take a while (the tokenizer's first
		// load), so the client's event goes first; the stream's
		// progress line covers a crash in between.
		a.out.refresh()
		a.d().errorEvent(sw, r, e)
		a.out.flush()
		end.End(out)
		return
	}
	end.End(out)
	if !gone {
		a.out.refresh()
		a.d().errorEvent(sw, r, e)
	}
}

// streamWriteTimeout bounds one write to a slow client: an event's, or
// the flush of the events held since the last. A deadline is set again
// only once it is deadlineSlack old, so a write gets between 59 s and a
// minute: setting it costs a lock and a timer's move in the runtime's
// poller, which a stream paid for each upstream read (issue 18).
const (
	streamWriteTimeout = time.Minute
	deadlineSlack      = time.Second
)

// relayOut is where a stream's events go, and what the wait hook
// flushes (answer.Wait).
type relayOut struct {
	sw *sse.Writer // nil until the stream begins
	// headed: the response's head has been flushed, with the events held
	// then, by Wait's first flush.
	headed bool
	// deadline is the write deadline set last (zero: none yet).
	deadline time.Time
	// now is the clock; nil: time.Now.
	now func() time.Time
}

// refresh gives the client a minute (less deadlineSlack at most) for what
// is written next, when that starts a write: nothing is held. A client
// that stops reading must not hold the stream (and the upstream call)
// forever. The deadline is set after the wait that came before (an
// upstream read, the usage recorded), never before it, so a long
// upstream silence does not leave a stale one; held events are flushed
// moments after the first of them is written, under its deadline, and a
// full buffer that goes out early goes under it too.
func (o *relayOut) refresh() {
	if o.sw.Pending() {
		return
	}
	now := time.Now()
	if o.now != nil {
		now = o.now()
	}
	if o.deadline.Sub(now) > streamWriteTimeout-deadlineSlack {
		return // set less than deadlineSlack ago
	}
	o.deadline = now.Add(streamWriteTimeout)
	o.sw.SetWriteDeadline(o.deadline)
}

// flush sends what is held, if anything; its error is the client's.
func (o *relayOut) flush() error {
	if o.sw == nil {
		return nil
	}
	return o.sw.Flush()
}

// Wait is the stream's wait hook (provider.WaitHook): it runs before each
// wait on the upstream and flushes what is held.
//
// Its first flush writes the response's head, and net/http's
// chunkWriter.writeHeader is a 2.8 KiB frame: run deep under the
// upstream's read in Next, it would double the stack that the stream
// keeps while it waits to 16 KiB (issue 18). Under the stream's Await,
// whose frames are shallow, it runs here; under Next (a stream that
// cannot wait apart, or a read that brought part of an event), that
// flush runs on a goroutine of its own, which ends with it, while this
// one waits: the same flush, at the same moment. A panic there is raised
// again here, on the request's goroutine, where the server's recovery
// sees it.
func (a *answer) Wait() error {
	if a.out.headed || a.out.sw == nil || !a.out.sw.Pending() {
		return a.out.flush()
	}
	a.out.headed = true
	if a.awaiting {
		return a.out.flush()
	}
	type result struct {
		err error
		bug any // a panic's value
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{bug: p}
			}
		}()
		done <- result{err: a.out.flush()}
	}()
	r := <-done
	if r.bug != nil {
		panic(r.bug)
	}
	return r.err
}

// Reading is told when an upstream's body starts and stops being read
// through Wait: in between, events are held until Wait. An attempt that
// fails closes its body, so a stream that follows it without the hook
// (the mock, after failed upstreams) is flushed event by event; so are
// the events between two prompts' streams of a legacy completion.
func (a *answer) Reading(on bool) {
	a.reading = on
	if a.out.sw != nil {
		a.out.sw.Hold(on)
		if !on {
			a.out.flush() // its error sticks: the next write returns it
		}
	}
}

// resetStreamHeaders undoes the SSE headers before a JSON error.
func resetStreamHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Type")
	h.Del("Cache-Control")
	h.Del("Connection")
	h.Del("X-Accel-Buffering")
}
