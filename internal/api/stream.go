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
func (h *Handler) writeStream(w http.ResponseWriter, r *http.Request, st provider.Stream, err error) {
	if err != nil {
		h.writeCallError(w, r, err)
		return
	}
	defer st.Close()
	sw := sse.NewWriter(w, r)
	rc := http.NewResponseController(w)
	for {
		chunk, err := st.Next()
		if errors.Is(err, io.EOF) {
			if !sw.Started() {
				w.WriteHeader(http.StatusOK)
			}
			sw.Done()
			return
		}
		if err != nil {
			if !sw.Started() {
				resetStreamHeaders(w)
				h.writeCallError(w, r, err)
				return
			}
			h.opt.Log.Warn("stream failed after it started", "id", server.RecordFrom(r.Context()).ID, "err", err)
			if r.Context().Err() == nil {
				e := callError(err)
				sw.Data(e.Body()[:len(e.Body())-1]) // without the newline
			}
			return
		}
		// A client that stops reading must not hold the stream (and the
		// upstream call) forever.
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := sw.Data(chunk); err != nil {
			return // the client went away; closing the stream cancels upstream
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
