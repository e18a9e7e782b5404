package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/switchyard-gw/switchyard/internal/messages"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// messagesDialect answers in Anthropic's Messages shapes: errors as
// {"type":"error","error":{"type","message"},"request_id"} with a
// request-id header, streams as named events with no end marker but
// message_stop (which the stream itself carries).
type messagesDialect struct{}

var _ dialect = messagesDialect{}

// statusOverloaded is Anthropic's status for an overloaded API, which
// its SDKs retry.
const statusOverloaded = 529

// messagesStatus maps an error's status, as errorFor and the gateway give
// it, to Anthropic's status and error type.
func messagesStatus(status int) (int, string) {
	switch {
	case status == http.StatusUnauthorized:
		return status, "authentication_error"
	case status == http.StatusForbidden:
		return status, "permission_error"
	case status == http.StatusNotFound:
		return status, "not_found_error"
	case status == http.StatusRequestEntityTooLarge:
		return status, "request_too_large"
	case status == http.StatusTooManyRequests:
		return status, "rate_limit_error"
	case status == http.StatusServiceUnavailable:
		return statusOverloaded, "overloaded_error"
	case status == http.StatusGatewayTimeout:
		return status, "timeout_error"
	case status >= 500:
		return status, "api_error"
	}
	return status, "invalid_request_error"
}

type messagesErrorBody struct {
	Type      string              `json:"type"` // "error"
	Error     messagesErrorObject `json:"error"`
	RequestID string              `json:"request_id"`
}

type messagesErrorObject struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// messagesError returns e's Anthropic status and body (no newline).
func messagesError(r *http.Request, e *Error) (int, []byte) {
	status, typ := messagesStatus(e.Status)
	b, _ := json.Marshal(messagesErrorBody{Type: "error", Error: messagesErrorObject{Type: typ, Message: e.Message},
		RequestID: server.RecordFrom(r.Context()).ID})
	return status, b
}

func (messagesDialect) writeError(w http.ResponseWriter, r *http.Request, e *Error) {
	setRequestID(w, r)
	status, body := messagesError(r, e)
	writeErrorBody(w, status, e.RetryAfter, append(body, '\n'))
}

func (messagesDialect) event(sw *sse.Writer, data []byte) error {
	return sw.Event(eventType(data), data)
}

func (messagesDialect) done(*sse.Writer) error { return nil }

func (messagesDialect) errorEvent(sw *sse.Writer, r *http.Request, e *Error) error {
	_, body := messagesError(r, e)
	return sw.Event("error", body)
}

// setRequestID sets Anthropic's request-id header: the gateway's ID.
func setRequestID(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("request-id", server.RecordFrom(r.Context()).ID)
}

// messagesBadRequest is the 400 of a request messages refuses.
func messagesBadRequest(err error) *Error {
	var me *messages.Error
	if errors.As(err, &me) {
		return badRequest(me.Param, "", me.Error())
	}
	return badRequest("", "", err.Error())
}
