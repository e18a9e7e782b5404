package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// statusClientClosed is logged when the client went away (nginx's 499).
const statusClientClosed = gateway.StatusClientClosed

// errorFor is the one place that maps a failed request to what the
// client sees: the gateway's typed errors (routing, limits, budgets,
// context windows, cooling deployments), upstream failures, and the
// gateway's own *Error. A failure while the gateway shuts down is a
// retryable 503, not a client that went away. Upstream credentials
// problems are the gateway's, never the client's: they are 502s, not
// invalid_api_key.
func errorFor(r *http.Request, h http.Header, err error) *Error {
	if shuttingDown(r) {
		e := serverError(http.StatusServiceUnavailable, "The gateway is shutting down and cut this request short. Please retry.")
		e.RetryAfter = 1
		return e
	}
	var own *Error
	var ob *limits.OverBudget
	var rl *gateway.RateLimited
	var long *gateway.ContextTooLong
	var none *gateway.NoDeployment
	var wrong *gateway.ErrWrongEndpoint
	var unsup *gateway.ErrUnsupported
	var pe *provider.Error
	switch {
	case errors.As(err, &own):
		return own
	case errors.Is(err, route.ErrNotFound):
		return ModelNotFound()
	case errors.As(err, &ob):
		return overBudget(ob, time.Now())
	case errors.As(err, &rl):
		return rateLimited(h, rl.Refusal)
	case errors.Is(err, gateway.ErrBudgetUnavailable):
		return unavailable("Spend limits cannot be checked just now. Please retry.", 1)
	case errors.Is(err, gateway.ErrRatesUnavailable):
		return unavailable("Rate limits cannot be checked just now. Please retry.", 1)
	case errors.As(err, &long):
		return badRequest(long.Param, "context_length_exceeded", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your %s resulted in at least %d tokens. Please reduce the length of the %s.",
			long.Window, long.Param, long.Tokens, long.Param))
	case errors.As(err, &none):
		return noDeployment(none)
	case errors.As(err, &wrong):
		return badRequest("model", "model_not_supported", fmt.Sprintf(
			"The model `%s` is a %s model and is not supported on this endpoint.", wrong.Model, wrong.Mode))
	case errors.As(err, &unsup):
		code := unsup.Code
		if code == "" {
			code = "unsupported_parameter"
		}
		return badRequest(unsup.Param, code, unsup.Message)
	case errors.As(err, &pe):
		return providerError(pe)
	}
	return serverError(http.StatusInternalServerError, "The server had an error while processing your request.")
}

// noDeployment answers at once, without an upstream call, a model whose
// deployments are all cooling down: 429 when upstream rate limiting
// cooled them, else 503, both with Retry-After.
func noDeployment(nd *gateway.NoDeployment) *Error {
	secs := retrySeconds(nd.RetryAfter)
	if nd.RateLimited {
		return &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true, RetryAfter: secs,
			Message: fmt.Sprintf("Every upstream deployment of the model `%s` is rate-limiting requests. Try again in %ds.", nd.Model, secs)}
	}
	return unavailable(fmt.Sprintf("No upstream deployment of the model `%s` is available just now: all are cooling down after failures. Try again in %ds.", nd.Model, secs), secs)
}

func unavailable(msg string, retryAfter int) *Error {
	e := serverError(http.StatusServiceUnavailable, msg)
	e.RetryAfter = retryAfter
	return e
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
