package server

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/switchyard-gw/switchyard/internal/jsonenc"
)

// accessLine is what the access log line says of a request.
type accessLine struct {
	id, method, route, model string
	status                   int
	bytes                    int64
	start                    time.Time // when the request arrived
	account, deployment      string
	attempts                 int
}

// attrs returns the line's attributes after time, level and message,
// its latency ending at end.
func (l *accessLine) attrs(end time.Time) [10]slog.Attr {
	return [10]slog.Attr{
		slog.String("id", l.id),
		slog.String("method", l.method),
		slog.String("route", l.route),
		slog.String("model", l.model),
		slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes),
		slog.Float64("latency_ms", latencyMillis(end.Sub(l.start))),
		slog.String("account", l.account),
		slog.String("deployment", l.deployment),
		slog.Int("attempts", l.attempts),
	}
}

// latencyMillis is the latency logged: milliseconds, to the microsecond.
func latencyMillis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// logRequest writes l as the "request" line at level: itself when log's
// handler is a LogHandler, else through slog.
func logRequest(ctx context.Context, log *slog.Logger, level slog.Level, l *accessLine) {
	if h, ok := log.Handler().(*LogHandler); ok {
		h.logRequest(ctx, level, l)
		return
	}
	a := l.attrs(time.Now())
	log.LogAttrs(ctx, level, "request", a[:]...)
}

// LogHandler is slog's JSON handler that writes the access log line
// itself, the same bytes that slog.NewJSONHandler(w, &slog.HandlerOptions{
// Level: level}) writes, without slog's record, its attributes' copies,
// the boxing of the latency to format it through encoding/json, nor its
// handler's mutex when w is a file. Other lines, and the lines of
// loggers derived with With or WithGroup, go through slog.
//
// Lines are written in one Write each. On a file, the descriptor's own
// lock keeps them whole; any other w is locked by the handler.
type LogHandler struct {
	*slog.JSONHandler
	w    io.Writer
	bufs sync.Pool // *[]byte
}

// NewLogHandler returns a LogHandler writing lines at level and above
// to w.
func NewLogHandler(w io.Writer, level slog.Leveler) *LogHandler {
	if _, ok := w.(*os.File); !ok {
		w = &lockedWriter{w: w}
	}
	return &LogHandler{JSONHandler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}), w: w}
}

// maxLineBuffer bounds the buffers kept for reuse: a line with a long
// model name or route allocates its own.
const maxLineBuffer = 4 << 10

func (h *LogHandler) logRequest(ctx context.Context, level slog.Level, l *accessLine) {
	if !h.Enabled(ctx, level) {
		return
	}
	bp, _ := h.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = appendAccessLine((*bp)[:0], time.Now(), level, l)
	h.w.Write(*bp)
	if cap(*bp) <= maxLineBuffer {
		h.bufs.Put(bp)
	}
}

// appendAccessLine appends l as the JSON line slog's handler makes of it
// with time now; its latency ends then.
func appendAccessLine(b []byte, now time.Time, level slog.Level, l *accessLine) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = jsonenc.AppendString(b, level.String())
	b = append(b, `,"msg":"request","id":`...)
	b = jsonenc.AppendString(b, l.id)
	b = append(b, `,"method":`...)
	b = jsonenc.AppendString(b, l.method)
	b = append(b, `,"route":`...)
	b = jsonenc.AppendString(b, l.route)
	b = append(b, `,"model":`...)
	b = jsonenc.AppendString(b, l.model)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, `,"latency_ms":`...)
	b = appendJSONFloat(b, latencyMillis(now.Sub(l.start)))
	b = append(b, `,"account":`...)
	b = jsonenc.AppendString(b, l.account)
	b = append(b, `,"deployment":`...)
	b = jsonenc.AppendString(b, l.deployment)
	b = append(b, `,"attempts":`...)
	b = strconv.AppendInt(b, int64(l.attempts), 10)
	return append(b, '}', '\n')
}

// appendJSONFloat appends f as encoding/json writes a float64, which is
// how slog's JSON handler writes one: exponent form for very small and
// very large numbers, with a one-digit negative exponent kept so.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-09 → e-9
		b = b[:n-1]
	}
	return b
}

// lockedWriter makes a Write at a time to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
