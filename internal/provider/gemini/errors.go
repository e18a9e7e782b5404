package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Codes of the requests the adapter refuses, as OpenAI names them.
const (
	codeInvalid     = "invalid_value"         // a value Gemini cannot take
	codeUnsupported = "unsupported_parameter" // a feature Gemini does not have
)

// refuse is the error for a request the adapter cannot translate: the
// client's 400, naming the OpenAI field at fault. The caller sets
// Provider.
func refuse(code, param, format string, args ...any) error {
	return &provider.Error{
		Kind:    provider.KindBadRequest,
		Param:   param,
		Code:    code,
		Message: fmt.Sprintf(format, args...),
	}
}

// owned sets the provider name on a translation error.
func owned(name string, err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Provider == "" {
		pe.Provider = name
	}
	return err
}

// statusError classifies a Gemini error response,
// {"error":{"code","message","status","details"}}.
func statusError(name string, status int, h http.Header, body []byte) *provider.Error {
	e := provider.FromStatus(name, status, h, body) // message and Retry-After header
	e.Code, e.Param = "", ""
	g := gjson.GetBytes(body, "error")
	e.Type = g.Get("status").Str
	reason := errorReason(g)
	e.Kind = errorKind(status, e.Type, reason)
	if e.Kind == provider.KindNotFound && !strings.Contains(e.Message, "models/") {
		e.Kind = provider.KindNoEndpoint // not Gemini's "models/x is not found"
	}
	if reason != "" {
		e.Code = strings.ToLower(reason)
	}
	if d := retryDelay(g); d > 0 {
		e.RetryAfter = d
	}
	if e.Kind == provider.KindBadRequest && contextTooLong(e.Message) {
		e.Code, e.Param = "context_length_exceeded", "messages"
	}
	return e
}

// errorKind maps an HTTP status, canonical status and ErrorInfo reason to
// a Kind. Gemini answers a bad API key with 400 API_KEY_INVALID: that is
// the gateway's credential, not the client's request. FAILED_PRECONDITION
// (billing, region) is the gateway's account too, and another deployment
// may work.
func errorKind(status int, canonical, reason string) provider.Kind {
	switch {
	case reason == "API_KEY_INVALID" || status == http.StatusUnauthorized || status == http.StatusForbidden:
		return provider.KindAuth
	case canonical == "FAILED_PRECONDITION":
		return provider.KindUnavailable
	case status == http.StatusNotFound && canonical == "NOT_FOUND":
		return provider.KindNotFound
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return provider.KindNoEndpoint
	case status == http.StatusTooManyRequests:
		return provider.KindRateLimit
	case status == http.StatusServiceUnavailable:
		return provider.KindOverloaded
	case status == http.StatusGatewayTimeout || status == http.StatusRequestTimeout:
		return provider.KindTimeout
	case status >= 500:
		return provider.KindUnavailable
	}
	return provider.KindBadRequest
}

// errorReason returns the reason of the first google.rpc.ErrorInfo detail.
func errorReason(g gjson.Result) string {
	reason := ""
	g.Get("details").ForEach(func(_, d gjson.Result) bool {
		if strings.HasSuffix(d.Get("@type").Str, "google.rpc.ErrorInfo") {
			reason = d.Get("reason").Str
		}
		return reason == ""
	})
	return reason
}

// retryDelay reads google.rpc.RetryInfo's retryDelay ("27s", "1.5s").
func retryDelay(g gjson.Result) time.Duration {
	var d time.Duration
	g.Get("details").ForEach(func(_, x gjson.Result) bool {
		if !strings.HasSuffix(x.Get("@type").Str, "google.rpc.RetryInfo") {
			return true
		}
		v, err := time.ParseDuration(x.Get("retryDelay").Str)
		if err == nil && v > 0 {
			d = v
		}
		return false
	})
	return d
}

// contextTooLong reports Gemini's message for a prompt over the model's
// input limit ("The input token count (…) exceeds the maximum number of
// tokens allowed (…)"), which OpenAI clients know as
// context_length_exceeded.
func contextTooLong(msg string) bool {
	return strings.Contains(msg, "input token count") && strings.Contains(msg, "exceeds the maximum")
}

// streamError is an {"error":…} object that arrived after the 200.
func streamError(name string, data []byte) *provider.Error {
	status := int(gjson.GetBytes(data, "error.code").Int())
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return statusError(name, status, nil, data)
}
