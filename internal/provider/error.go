package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
)

// Kind classifies an upstream failure by what the client can do about it.
type Kind int

// Kinds of upstream failure.
const (
	// KindBadRequest: the upstream rejected the request's content (400).
	KindBadRequest Kind = iota
	// KindAuth: the upstream refused the gateway's credentials (401/403).
	KindAuth
	// KindNotFound: the upstream does not know the model: a 404 that is
	// the provider's own model-not-found error.
	KindNotFound
	// KindRateLimit: the upstream is rate-limiting (429).
	KindRateLimit
	// KindUnavailable: the upstream failed or could not be reached (5xx,
	// connection errors).
	KindUnavailable
	// KindOverloaded: the upstream says it is overloaded (529).
	KindOverloaded
	// KindTimeout: the upstream did not answer in time.
	KindTimeout
	// KindCanceled: the client went away.
	KindCanceled
	// KindNoEndpoint: the upstream has no such endpoint (another 404, or a
	// 405), most likely a wrong base URL: the gateway's configuration is at
	// fault, not the client's request.
	KindNoEndpoint
)

// Error is a failed upstream call.
type Error struct {
	Provider string
	Kind     Kind
	Status   int    // upstream HTTP status, 0 when there was none
	Message  string // upstream's message, safe to show the client
	Type     string // upstream error type, when given
	Code     string // upstream error code, when given
	Param    string // upstream error param, when given
	// RetryAfter is the upstream's Retry-After, when given.
	RetryAfter time.Duration
	// Path is the URL path of the upstream request that failed with a
	// status, for logs; never its host, query or credentials.
	Path string
	Err  error // underlying transport error, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("provider %s: %v", e.Provider, e.Err)
	}
	return fmt.Sprintf("provider %s: status %d: %s", e.Provider, e.Status, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// FromStatus builds the Error for an upstream HTTP error response with an
// OpenAI-shaped (or similar) JSON body. A 404 is KindNotFound only when it
// is an OpenAI-style model-not-found (code model_not_found, or param
// model, as OpenAI-compatible hosts send); any other 404 or 405 is
// KindNoEndpoint. Adapters whose provider says it otherwise reclassify.
func FromStatus(provider string, status int, header http.Header, body []byte) *Error {
	e := &Error{Provider: provider, Status: status}
	msg := gjson.GetBytes(body, "error.message")
	if !msg.Exists() {
		msg = gjson.GetBytes(body, "message")
	}
	e.Message = msg.String()
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	e.Type = gjson.GetBytes(body, "error.type").String()
	e.Code = gjson.GetBytes(body, "error.code").String()
	e.Param = gjson.GetBytes(body, "error.param").String()
	e.RetryAfter = retryAfter(header)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = KindAuth
	case status == http.StatusNotFound && (e.Code == "model_not_found" || e.Param == "model"):
		e.Kind = KindNotFound
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		e.Kind = KindNoEndpoint
	case status == http.StatusTooManyRequests:
		e.Kind = KindRateLimit
	case status == 529: // Anthropic's "overloaded"
		e.Kind = KindOverloaded
	case status == http.StatusGatewayTimeout || status == http.StatusRequestTimeout:
		e.Kind = KindTimeout
	case status >= 500:
		e.Kind = KindUnavailable
	default:
		e.Kind = KindBadRequest
	}
	return e
}

// Unreadable is the Error of an upstream answer the gateway cannot read
// (invalid JSON, an event stream it cannot parse): the upstream's
// failure, so another deployment may serve the call.
func Unreadable(provider string, err error) *Error {
	return &Error{Provider: provider, Kind: KindUnavailable, Err: fmt.Errorf("unreadable upstream answer: %w", err)}
}

// FromTransport classifies an error from the HTTP client.
func FromTransport(ctx context.Context, provider string, err error) *Error {
	var classified *Error
	if errors.As(err, &classified) { // where it happened (a stream gone idle)
		return classified
	}
	e := &Error{Provider: provider, Err: err, Kind: KindUnavailable}
	var ne net.Error
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled):
		e.Kind = KindCanceled
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind = KindTimeout
	}
	return e
}

func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
