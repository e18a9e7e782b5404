package api

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// writeStream relays a stream to the client chunk by chunk, flushing each.
// A failure before the first byte is an ordinary JSON error with a status;
// after it, a final data: {"error":…} event and no [DONE].
//
// The usage is recorded before the stream's last bytes are written: at
// [DONE], before the error event, or when the client has gone (partial
// usage, flagged cancelled). A stream the gateway's shutdown cut sends its
// error event first and is recorded right after, as partial usage.
func (h *Handler) writeStream(w http.ResponseWriter, r *http.Request, st provider.Stream, err error, u *tally) {
	if err != nil {
		h.writeCallError(w, r, err, u)
		return
	}
	defer st.Close()
	sw := sse.NewWriter(w, r)
	rc := http.NewResponseController(w)
	for {
		chunk, err := st.Next()
		if errors.Is(err, io.EOF) {
			u.finish(http.StatusOK, st.Usage(), "", false)
			if !sw.Started() {
				w.WriteHeader(http.StatusOK)
			}
			sw.Done()
			return
		}
		if err != nil {
			if !sw.Started() {
				resetStreamHeaders(w)
				h.writeCallError(w, r, err, u)
				return
			}
			h.opt.Log.Warn("stream failed after it started", "id", server.RecordFrom(r.Context()).ID, "err", err)
			e, cut := requestError(r, err), r.Context().Err() != nil
			gone := cut && !shuttingDown(r)
			if gone {
				e.Status, e.Type = statusClientClosed, ""
			}
			if cut && !gone {
				// Shutdown: the connection closes soon, and counting the
				// partial usage may take a while (the tokenizer's first
				// load), so the client's event goes first; the stream's
				// progress line covers a crash in between.
				sw.Data(e.Body()[:len(e.Body())-1]) // without the newline
				u.finish(e.Status, st.Usage(), e.Type, cut)
				return
			}
			u.finish(e.Status, st.Usage(), e.Type, cut)
			if !gone {
				sw.Data(e.Body()[:len(e.Body())-1])
			}
			return
		}
		u.chunk()
		// A client that stops reading must not hold the stream (and the
		// upstream call) forever.
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := sw.Data(chunk); err != nil {
			// The client went away; closing the stream cancels upstream.
			u.finish(statusClientClosed, st.Usage(), "", true)
			return
		}
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
