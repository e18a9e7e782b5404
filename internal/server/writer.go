package server

import (
	"bufio"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
)

// statusWriter remembers the status and size of a response for the access
// log and for Recover.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	// hijacked: the handler took the connection over; sent: finish sent
	// the response.
	hijacked, sent bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush lets handlers that type-assert http.Flusher stream through us.
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.flush()
}

func (w *statusWriter) flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	rc := http.NewResponseController(w.ResponseWriter)
	rc.Flush()
}

// Hijack hands the connection over, as http.ResponseController does, and
// remembers it: finish must not touch a connection that is not the
// server's any more.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, buf, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return conn, buf, err
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends r's response to the client now, once the handler has
// returned, when it is complete as written: HTTP/1, a status with a body,
// a Content-Length the handler set and that many bytes written. net/http
// would send it only when the whole handler chain returns, after the
// access log line, the metrics and the trace span (issue 18); the flush
// sends then what it would, headers included, and its last flush has
// nothing left to write.
//
// Any other response is left to net/http, exactly as before: one without
// a Content-Length would go out chunked if flushed now (net/http sets the
// length of a short body only when the handler has returned), and its
// terminating chunk is written only then, so a flush would change its
// headers and not finish it; HEAD, 1xx, 204 and 304 answers have no body
// to finish; an HTTP/2 flush does not end the stream; a hijacked
// connection is not the server's. Call it only when the handler returned
// normally (not while a panic unwinds).
func (w *statusWriter) finish(r *http.Request) {
	if w.sent || w.hijacked || r.ProtoMajor != 1 || r.Method == http.MethodHead ||
		w.status < 200 || w.status == http.StatusNoContent || w.status == http.StatusNotModified {
		return
	}
	cl := w.Header()["Content-Length"]
	if len(cl) != 1 {
		return
	}
	if n, err := strconv.ParseInt(cl[0], 10, 64); err != nil || n != w.bytes {
		return
	}
	w.sent = true
	w.flush()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func stack() string { return string(debug.Stack()) }
