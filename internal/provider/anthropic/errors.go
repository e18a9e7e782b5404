package anthropic

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// statusError classifies an upstream error response. Anthropic's body is
// {"type":"error","error":{"type","message"},"request_id"}, which
// provider.FromStatus reads; this adds what is Anthropic's own: 402
// billing, "overloaded_error" whatever the status, 413, prompts that are
// too long, and its model-not-found: a 404 not_found_error whose message
// starts "model:" (an unknown path is a not_found_error "Not Found").
func statusError(name string, status int, h http.Header, body []byte) error {
	e := provider.FromStatus(name, status, h, body)
	switch {
	case status == http.StatusNotFound && e.Type == "not_found_error" && strings.HasPrefix(e.Message, "model:"):
		e.Kind = provider.KindNotFound
	case e.Type == "overloaded_error":
		e.Kind = provider.KindOverloaded
	case status == http.StatusPaymentRequired:
		// The gateway's account is out of credit: not the client's fault.
		e.Kind = provider.KindAuth
	case status == http.StatusRequestEntityTooLarge:
		e.Code = "request_too_large"
	case status == http.StatusBadRequest && strings.Contains(e.Message, "prompt is too long"):
		e.Code, e.Param = "context_length_exceeded", "messages"
	}
	return e
}

// kinds maps the error types of Anthropic's error bodies and stream error
// events to what the client can do about them.
var kinds = map[string]provider.Kind{
	"invalid_request_error": provider.KindBadRequest,
	"request_too_large":     provider.KindBadRequest,
	"authentication_error":  provider.KindAuth,
	"permission_error":      provider.KindAuth,
	"billing_error":         provider.KindAuth,
	"not_found_error":       provider.KindNotFound,
	"rate_limit_error":      provider.KindRateLimit,
	"api_error":             provider.KindUnavailable,
	"timeout_error":         provider.KindTimeout,
	"overloaded_error":      provider.KindOverloaded,
}

// eventError turns the payload of a stream "error" event into an Error.
// There is no status: the stream had already begun with 200.
func eventError(name string, data []byte) error {
	typ := gjson.GetBytes(data, "error.type").String()
	msg := gjson.GetBytes(data, "error.message").String()
	if msg == "" {
		msg = "upstream error in stream"
	}
	kind, ok := kinds[typ]
	if !ok {
		kind = provider.KindUnavailable
	}
	return &provider.Error{Provider: name, Kind: kind, Type: typ, Message: msg}
}

// refuse reports a request the adapter will not send: Anthropic cannot
// express it, or it is malformed. param names the field at fault in
// OpenAI's notation. The provider name is set by the Client.
func refuse(param, format string, args ...any) error {
	return &provider.Error{
		Kind:    provider.KindBadRequest,
		Type:    "invalid_request_error",
		Code:    "invalid_value",
		Param:   param,
		Message: fmt.Sprintf(format, args...),
	}
}

// unsupported reports a field Anthropic cannot honour.
func unsupported(param, format string, args ...any) error {
	err := refuse(param, format, args...)
	err.(*provider.Error).Code = "unsupported_parameter"
	return err
}
