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
}

var _ gateway.Writer = (*answer)(nil)

func (a *answer) Header() http.Header { return a.w.Header() }

// Error writes err's client form, after recording it.
func (a *answer) Error(err error, end func(gateway.Outcome)) {
	e := errorFor(a.r, a.w.Header(), err)
	end(gateway.Outcome{Status: e.Status, ErrType: e.Type, Cancelled: e.Status == statusClientClosed || shuttingDown(a.r)})
	if e.Status == statusClientClosed {
		a.w.WriteHeader(statusClientClosed)
		return
	}
	WriteError(a.w, e)
}

// Response writes a complete answer, recorded first.
func (a *answer) Response(resp *provider.Response, end func(gateway.Outcome)) {
	if a.embeddings {
		b, err := encodeEmbeddings(resp.Body, a.base64)
		if err != nil {
			a.h.opt.Log.Warn("upstream answer unusable", "id", server.RecordFrom(a.r.Context()).ID, "err", err)
			a.Error(err, end)
			return
		}
		resp.Body = b
	}
	end(gateway.Outcome{Status: http.StatusOK})
	w := a.w
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(http.StatusOK)
	w.Write(resp.Body)
}

// Stream relays a stream to the client chunk by chunk, flushing each.
// A failure before the first byte is an ordinary JSON error with a status;
// after it, a final data: {"error":…} event and no [DONE].
func (a *answer) Stream(st provider.Stream, end func(gateway.Outcome)) {
	a.relay(st, end, chatEvents{})
}

// events frames a stream's chunks for the client.
type events interface {
	// send writes one chunk (it may hold it back for last).
	send(sw *sse.Writer, chunk []byte) error
	// last writes the end of a complete stream, once it is recorded.
	last(sw *sse.Writer)
	// failed writes the end of a stream that failed after it started.
	failed(sw *sse.Writer, e *Error)
}

// chatEvents frames OpenAI's chat and completion streams: data: lines,
// then [DONE], or a data: {"error":…} event when the stream fails.
type chatEvents struct{}

func (chatEvents) send(sw *sse.Writer, chunk []byte) error { return sw.Data(chunk) }
func (chatEvents) last(sw *sse.Writer)                     { sw.Done() }
func (chatEvents) failed(sw *sse.Writer, e *Error)         { sw.Data(e.Body()[:len(e.Body())-1]) } // without the newline

// relay relays st to the client through ev, flushing each event. A
// failure before the first byte is an ordinary JSON error with a status;
// after it, ev's error events.
//
// The usage is recorded before the stream's last bytes are written: before
// ev.last, before the error events, or when the client has gone (partial
// usage, flagged cancelled). A stream the gateway's shutdown cut sends its
// error events first and is recorded right after, as partial usage.
func (a *answer) relay(st provider.Stream, end func(gateway.Outcome), ev events) {
	w, r := a.w, a.r
	defer st.Close()
	sw := sse.NewWriter(w, r)
	rc := http.NewResponseController(w)
	for {
		chunk, err := st.Next()
		if errors.Is(err, io.EOF) {
			end(gateway.Outcome{Status: http.StatusOK})
			if !sw.Started() {
				w.WriteHeader(http.StatusOK)
			}
			ev.last(sw)
			return
		}
		if err != nil {
			a.streamFailed(sw, err, end, ev)
			return
		}
		// A client that stops reading must not hold the stream (and the
		// upstream call) forever.
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := ev.send(sw, chunk); err != nil {
			// The client went away; closing the stream cancels upstream.
			end(gateway.Outcome{Status: statusClientClosed, Cancelled: true})
			return
		}
	}
}

// streamFailed ends a stream whose upstream failed with err.
func (a *answer) streamFailed(sw *sse.Writer, err error, end func(gateway.Outcome), ev events) {
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
		// Shutdown: the connection closes soon, and counting the partial
		// usage may take a while (the tokenizer's first load), so the
		// client's events go first; the stream's progress line covers a
		// crash in between.
		ev.failed(sw, e)
		end(out)
		return
	}
	end(out)
	if !gone {
		ev.failed(sw, e)
	}
}

// streamWriteTimeout bounds one chunk's write to a slow client.
const streamWriteTimeout = time.Minute

// resetStreamHeaders undoes the SSE headers before a JSON error.
func resetStreamHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Type")
	h.Del("Cache-Control")
	h.Del("Connection")
	h.Del("X-Accel-Buffering")
}
