package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/auth"
)

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain applies mws so that the first one is the outermost.
func Chain(h http.Handler, mws ...Middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// Record collects what the access log line says about a request. Handlers
// fill it through RecordFrom.
type Record struct {
	// Start is when the request arrived.
	Start   time.Time
	ID      string
	Route   string
	Model   string
	Account string
	// Status, when set, is the request's outcome as the handler settled
	// it, logged instead of the status written: a stream that went out as
	// 200 and that the client abandoned is 499, as its usage record says
	// (issue 13).
	Status int
	// Deployment is the key of the deployment that answered (or failed
	// last), Attempts the upstream calls made (issue 15).
	Deployment string
	Attempts   int
	// Operation is a model request's GenAI operation ("chat",
	// "text_completion", "embeddings"), which with Model names its trace
	// span; empty for other requests.
	Operation string
	// ErrorType is the class of a failed model request's error as its
	// client was told (the error body's type), for its trace span.
	ErrorType string
	// Principal is the authenticated caller of an API request, set by
	// the API's auth: the record is the one context value a request
	// carries its state in, auth's included, so that authenticating costs
	// no context value and copy of the request of its own (issue 18).
	Principal auth.Principal
}

type recordKey struct{}

// RecordFrom returns the request's access log record; a throwaway one when
// the request did not pass through AccessLog (as in some tests).
func RecordFrom(ctx context.Context) *Record {
	if r, ok := RecordOf(ctx); ok {
		return r
	}
	return &Record{}
}

// RecordOf returns the request's access log record and whether it has
// one (NewContext or AccessLog gave it).
func RecordOf(ctx context.Context) (*Record, bool) {
	r, ok := ctx.Value(recordKey{}).(*Record)
	return r, ok
}

// NewContext returns ctx carrying rec as the request's record, for
// handlers served without AccessLog.
func NewContext(ctx context.Context, rec *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// RequestIDHeader is echoed from the client when sane, else generated.
const RequestIDHeader = "X-Request-Id"

// AccessLog gives every request an ID (echoed in X-Request-Id) and writes
// one log line when it ends: id, method, route, model, status, bytes,
// latency, account, and the deployment and attempts of a model request —
// never a key, a password or a prompt.
func AccessLog(log *slog.Logger) Middleware { return accessLog(log, nil) }

// Observer is told of every request when its access log line is
// written, for metrics; Served must not block and must not keep rec. A
// complete answer may have reached its client before (see finish).
type Observer interface {
	Served(rec *Record, status int)
}

// accessLog is AccessLog telling obs (when not nil) of each request.
//
// The handler's frame stays on the connection goroutine's stack for the
// whole request, a stream's idle hours included, so the work before and
// after next is done in functions of their own: the log line's attributes
// alone take a kilobyte of frame, which would count in every open
// stream's stack (issue 18). The requests it counts are counted for no
// one: New's server counts its own in the same frame (see logged).
func accessLog(log *slog.Logger, obs *Observer) Middleware {
	return func(next http.Handler) http.Handler {
		return &logged{active: new(inflight), log: log, obs: obs, next: next}
	}
}

// newInFlight starts a request's record and gives it its ID. One
// allocation holds the record, the writer and the ID header's value.
func newInFlight(w http.ResponseWriter, r *http.Request) *inFlight {
	st := &inFlight{rec: Record{Start: time.Now(), ID: requestID(r.Header.Get(RequestIDHeader))}}
	st.id[0] = st.rec.ID
	w.Header()[RequestIDHeader] = st.id[:]
	st.sw.ResponseWriter = w
	st.ctx = recordCtx{Context: r.Context(), rec: &st.rec}
	return st
}

// end finishes the answer, writes the request's log line and tells obs.
func (st *inFlight) end(log *slog.Logger, obs *Observer, r *http.Request) {
	rec, sw := &st.rec, &st.sw
	// An answer of known length reaches the client whole before the line
	// is written and the metrics hear of it (issue 18); a stream has
	// flushed its end already.
	sw.finish(r)
	status := statusOf(sw, rec)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	logRequest(r.Context(), log, level, &accessLine{
		id: rec.ID, method: r.Method, route: rec.Route, model: rec.Model, status: status, bytes: sw.bytes,
		start: rec.Start, account: rec.Account, deployment: rec.Deployment, attempts: rec.Attempts,
	})
	if obs != nil && *obs != nil {
		(*obs).Served(rec, status)
	}
}

// inFlight is what the access log keeps of a request while it is served.
type inFlight struct {
	rec Record
	sw  statusWriter
	id  [1]string // the X-Request-Id header's values
	ctx recordCtx // the context the handlers get
}

// recordCtx is a request's context carrying its record, as NewContext's
// does, held in the access log's one allocation instead of one of its
// own (issue 18). Its Done is its parent's, so that contexts derived from
// it hang on the server's cancelCtx with no goroutine to watch them.
type recordCtx struct {
	context.Context
	rec *Record
}

func (c *recordCtx) Value(key any) any {
	if key == (recordKey{}) {
		return c.rec
	}
	return c.Context.Value(key)
}

// requestID returns the client's ID when it is 1–128 visible ASCII
// characters without quotes or backslashes, else a new "req_" ID.
func requestID(client string) string {
	if n := len(client); n > 0 && n <= 128 {
		ok := true
		for i := 0; i < n && ok; i++ {
			c := client[i]
			ok = c > ' ' && c < 0x7f && c != '"' && c != '\\'
		}
		if ok {
			return client
		}
	}
	var raw [16]byte
	rand.Read(raw[:])
	var b [len("req_") + 2*len(raw)]byte
	copy(b[:], "req_")
	hex.Encode(b[4:], raw[:])
	return string(b[:]) // the one allocation
}

// internalErrorBody is the OpenAI-shaped 500 for a recovered panic.
const internalErrorBody = `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}` + "\n"

// Recover turns a panic into a logged 500 with the error body, or, when the
// response had already started, aborts the connection.
func Recover(log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					panicked(log, w, r, v)
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// panicked answers a request whose handler panicked with v (recovered):
// a logged 500, or the connection aborted once the response has started.
// http.ErrAbortHandler goes on up, as net/http expects it.
func panicked(log *slog.Logger, w http.ResponseWriter, r *http.Request, v any) {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	log.Error("panic serving request", "id", RecordFrom(r.Context()).ID, "route", RecordFrom(r.Context()).Route,
		"panic", v, "stack", stack())
	if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	w.Write([]byte(internalErrorBody))
}

// BodyLimit caps request bodies at max bytes; reading past it fails with
// *http.MaxBytesError, which handlers answer with 413. A body of declared
// length over max is refused at once; one within it is left as it is:
// net/http reads no more of it than its Content-Length, so only a body of
// unknown length (chunked) is wrapped, which spares the usual request an
// allocation and a layer under each read (issue 18).
func BodyLimit(max int64) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !refuseBody(w, r, max) {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// refuseBody answers 413 and reports true when r's declared length is
// over max, and wraps a body of unknown length to stop at max.
func refuseBody(w http.ResponseWriter, r *http.Request, max int64) bool {
	if r.ContentLength > max {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		w.Write([]byte(TooLargeBody(max)))
		return true
	}
	if r.ContentLength < 0 {
		r.Body = http.MaxBytesReader(w, r.Body, max)
	}
	return false
}

// TooLargeBody is the 413 error body for a body over max bytes.
func TooLargeBody(max int64) string {
	return `{"error":{"message":"The request body is too large: the limit is ` + itoa(max) +
		` bytes.","type":"invalid_request_error","param":null,"code":"request_too_large"}}` + "\n"
}

// HSTS sets Strict-Transport-Security on every response (TLS only).
func HSTS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setHSTS(w)
		next.ServeHTTP(w, r)
	})
}

func setHSTS(w http.ResponseWriter) {
	w.Header().Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
}

// CORS allows browser calls from the listed origins only; with an empty
// list it adds nothing.
func CORS(origins []string) Middleware {
	return func(next http.Handler) http.Handler {
		if len(origins) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !answerCORS(w, r, origins) {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// answerCORS sets the CORS headers of a request from one of origins, and
// reports true when it answered it: a preflight, which goes no further.
func answerCORS(w http.ResponseWriter, r *http.Request, origins []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !slices.Contains(origins, origin) {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, Retry-After-Ms, "+
		"X-Ratelimit-Limit-Requests, X-Ratelimit-Remaining-Requests, X-Ratelimit-Reset-Requests, "+
		"X-Ratelimit-Limit-Tokens, X-Ratelimit-Remaining-Tokens, X-Ratelimit-Reset-Tokens")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, "+
			"OpenAI-Organization, OpenAI-Project, "+strings.Join(stainlessHeaders, ", "))
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// stainlessHeaders are sent by the official OpenAI clients.
var stainlessHeaders = []string{
	"X-Stainless-Lang", "X-Stainless-Package-Version", "X-Stainless-OS", "X-Stainless-Arch",
	"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Retry-Count", "X-Stainless-Timeout",
}
