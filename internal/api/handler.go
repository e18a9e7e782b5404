package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// Authenticator resolves an Authorization header to a principal.
type Authenticator interface {
	Authenticate(ctx context.Context, header string) (auth.Principal, error)
}

// Options configure a Handler.
type Options struct {
	Auth Authenticator
	Log  *slog.Logger
	// Ready reports whether the store answers, for /readyz.
	Ready func(ctx context.Context) error
	// WildcardModels selects the seed's /v1/models behaviour
	// (models.listing: wildcard).
	WildcardModels bool
	// Gateway serves the model endpoints.
	Gateway *gateway.Gateway
	// MaxBodyBytesInFlight bounds the memory of all request bodies held
	// at once (server.max_body_bytes_in_flight); past it requests get 503
	// with Retry-After. 0: unbounded.
	MaxBodyBytesInFlight int64
	// Responses keeps the Responses API's answers (store:true) for
	// retrieval and previous_response_id; nil keeps none.
	Responses ResponseStore
	// ResponseRetention is how long a stored response is kept (default
	// 720h).
	ResponseRetention time.Duration
}

// Handler serves the /v1 API and the health endpoints.
type Handler struct {
	opt    Options
	mux    *http.ServeMux
	bodies bodyBytes
	// saveFailures counts the responses that could not be stored.
	saveFailures atomic.Int64
}

// New returns the API handler with its routes.
func New(opt Options) *Handler {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	h := &Handler{opt: opt, mux: http.NewServeMux()}
	h.bodies.max = opt.MaxBodyBytesInFlight
	if opt.ResponseRetention <= 0 {
		h.opt.ResponseRetention = 720 * time.Hour
	}
	h.route("GET /healthz", h.healthz)
	h.route("GET /readyz", h.readyz)
	h.route("POST /v1/chat/completions", h.authed(h.chat))
	h.route("POST /v1/completions", h.authed(h.completions))
	h.route("POST /v1/embeddings", h.authed(h.embeddings))
	h.route("GET /v1/models", h.authed(h.listModels))
	h.route("GET /v1/models/{model...}", h.authed(h.getModel))
	h.route("POST /v1/messages", h.authedBy(h.anthropicKey, messagesDialect{}, h.messages))
	h.route("POST /v1/messages/count_tokens", h.authedBy(h.anthropicKey, messagesDialect{}, h.countTokens))
	h.responsesRoutes()
	h.mux.HandleFunc("/", notFound)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// route registers fn for "METHOD /path" and, for the same path with any
// other method, a 405 in the error shape.
func (h *Handler) route(pattern string, fn http.HandlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	h.routeMethods(path, methodFn{method, fn})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "unknown_url",
		Message: "Unknown request URL: " + r.Method + " " + r.URL.Path + ". Please check the URL for typos."})
}

// authed runs fn only for a request with a valid, active key in its
// Authorization header.
func (h *Handler) authed(fn http.HandlerFunc) http.HandlerFunc {
	return h.authedBy(authorization, openAI{}, fn)
}

// authError maps an authentication failure to its response. The message
// never repeats the key.
func (h *Handler) authError(r *http.Request, err error) *Error {
	switch {
	case errors.Is(err, auth.ErrMissing):
		return unauthorized("You didn't provide an API key. Provide it in the Authorization header using Bearer auth (Authorization: Bearer YOUR_KEY).")
	case errors.Is(err, auth.ErrScheme):
		return unauthorized("Invalid Authorization header: expected the Bearer scheme (Authorization: Bearer YOUR_KEY).")
	case errors.Is(err, auth.ErrMalformed):
		return unauthorized("Malformed API key provided: Switchyard keys are 'sk-switchyard-' followed by 32 letters and digits.")
	case errors.Is(err, auth.ErrRevoked):
		return unauthorized("The API key provided has been revoked. Create a new key in the dashboard.")
	case errors.Is(err, auth.ErrUnknown), errors.Is(err, auth.ErrDisabled):
		return unauthorized("Incorrect API key provided. You can find your API keys in the Switchyard dashboard.")
	}
	h.opt.Log.Error("authenticate", "id", server.RecordFrom(r.Context()).ID, "err", err)
	e := serverError(http.StatusServiceUnavailable, "The gateway could not verify the API key just now. Please retry.")
	e.RetryAfter = 1
	return e
}

func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if h.opt.Ready != nil {
		if err := h.opt.Ready(ctx); err != nil {
			h.opt.Log.Warn("not ready", "err", err)
			WriteError(w, serverError(http.StatusServiceUnavailable, "The store is not reachable."))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"ready"}` + "\n"))
}
