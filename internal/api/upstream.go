package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// statusClientClosed is logged when the client went away (nginx's 499).
const statusClientClosed = 499

// callError maps an error from routing or an upstream to what the client
// sees. Upstream credentials problems are the gateway's, never the
// client's: they are 502s, not invalid_api_key.
func callError(err error) *Error {
	var wrong *gateway.ErrWrongEndpoint
	var unsup *gateway.ErrUnsupported
	var pe *provider.Error
	switch {
	case errors.Is(err, route.ErrNotFound):
		return ModelNotFound()
	case errors.As(err, &wrong):
		return badRequest("model", "model_not_supported", fmt.Sprintf(
			"The model `%s` is a %s model and is not supported on this endpoint.", wrong.Model, wrong.Mode))
	case errors.As(err, &unsup):
		return badRequest(unsup.Param, "unsupported_parameter", unsup.Message)
	case errors.As(err, &pe):
		return providerError(pe)
	}
	return serverError(http.StatusInternalServerError, "The server had an error while processing your request.")
}

func providerError(pe *provider.Error) *Error {
	switch pe.Kind {
	case provider.KindBadRequest:
		code := pe.Code
		return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: pe.Param, Code: code, Message: pe.Message}
	case provider.KindAuth:
		return &Error{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_auth_failed", Message: fmt.Sprintf(
			"The gateway's credentials for provider %s were refused by the upstream. This is a gateway configuration problem, not your API key.", pe.Provider)}
	case provider.KindNotFound:
		return ModelNotFound()
	case provider.KindNoEndpoint:
		return &Error{Status: http.StatusBadGateway, Type: "upstream_error", Code: "upstream_not_found", Message: fmt.Sprintf(
			"The upstream provider %s answered %d: it has no such endpoint, so its base URL in the gateway's configuration is probably wrong. This is a gateway configuration problem, not your request.", pe.Provider, pe.Status)}
	case provider.KindRateLimit:
		secs := retrySeconds(pe.RetryAfter)
		return &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true, RetryAfter: secs,
			Message: fmt.Sprintf("The upstream provider %s is rate-limiting requests for this model. Try again in %ds.", pe.Provider, secs)}
	case provider.KindOverloaded:
		secs := retrySeconds(pe.RetryAfter)
		return &Error{Status: http.StatusServiceUnavailable, Type: "server_error", RetryAfter: secs,
			Message: fmt.Sprintf("The upstream provider %s is overloaded. Try again in %ds.", pe.Provider, secs)}
	case provider.KindTimeout:
		msg := fmt.Sprintf("The upstream provider %s did not answer in time.", pe.Provider)
		if errors.Is(pe, provider.ErrStreamIdle) {
			msg = fmt.Sprintf("The upstream provider %s stopped sending the stream for longer than its idle timeout.", pe.Provider)
		}
		return &Error{Status: http.StatusGatewayTimeout, Type: "server_error", Message: msg}
	case provider.KindCanceled:
		return &Error{Status: statusClientClosed, Type: "invalid_request_error", Message: "The client closed the request."}
	}
	msg := fmt.Sprintf("The upstream provider %s failed to answer.", pe.Provider)
	if pe.Status != 0 {
		msg = fmt.Sprintf("The upstream provider %s failed with status %d.", pe.Provider, pe.Status)
	}
	return &Error{Status: http.StatusBadGateway, Type: "server_error", Message: msg}
}

// requestError is callError for a request's failed call, except that a
// call cut by the gateway's shutdown is a retryable 503, not a client
// that went away.
func requestError(r *http.Request, err error) *Error {
	if shuttingDown(r) {
		e := serverError(http.StatusServiceUnavailable, "The gateway is shutting down and cut this request short. Please retry.")
		e.RetryAfter = 1
		return e
	}
	return callError(err)
}

// shuttingDown reports whether the request was cancelled because the
// server's shutdown grace period ran out.
func shuttingDown(r *http.Request) bool {
	return errors.Is(context.Cause(r.Context()), server.ErrShutdown)
}

// retrySeconds rounds a Retry-After up to whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// gatewayFault reports whether err is the gateway's own configuration
// failing (an upstream refusing its credentials, or a base URL the
// upstream has no endpoint at): such a request does not count against
// the client's rate limits.
func gatewayFault(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && (pe.Kind == provider.KindAuth || pe.Kind == provider.KindNoEndpoint)
}

// upstreamAttrs are the log attributes of an upstream failure: the
// provider, and the status and path the upstream answered with.
func upstreamAttrs(err error) []any {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Status == 0 {
		return nil
	}
	return []any{"provider", pe.Provider, "upstream_status", pe.Status, "upstream_path", pe.Path}
}
