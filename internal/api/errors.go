// Package api serves Switchyard's OpenAI-compatible HTTP API: it
// authenticates, decodes and validates requests, and maps every error to
// OpenAI's error body in one place.
package api

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Error is a client-facing error: an HTTP status and OpenAI's error object.
type Error struct {
	Status  int
	Message string
	Type    string
	Param   string // empty → null
	Code    string // empty → null, or absent when NoCode
	// NoCode omits the "code" key altogether (429, per the spec).
	NoCode bool
	// RetryAfter, when positive, is sent as Retry-After seconds.
	RetryAfter int
}

func (e *Error) Error() string { return e.Message }

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type errorBodyNoCode struct {
	Error errorObjectNoCode `json:"error"`
}

type errorObjectNoCode struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Body returns the JSON error body, newline-terminated.
func (e *Error) Body() []byte {
	var v any = errorBody{errorObject{e.Message, e.Type, nullable(e.Param), nullable(e.Code)}}
	if e.NoCode {
		v = errorBodyNoCode{errorObjectNoCode{e.Message, e.Type, nullable(e.Param)}}
	}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// WriteError writes e as the response.
func WriteError(w http.ResponseWriter, e *Error) { writeErrorBody(w, e.Status, e.RetryAfter, e.Body()) }

// writeErrorBody writes an error response: its status, Retry-After when
// positive, and its JSON body.
func writeErrorBody(w http.ResponseWriter, status, retryAfter int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	w.Write(body)
}

// Errors the gateway itself produces.

func badRequest(param, code, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Code: code, Message: msg}
}

// ModelNotFound is the 404 for a model that is not available to the key.
func ModelNotFound() *Error {
	return &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model",
		Code: "model_not_found", Message: "Model not found"}
}

func unauthorized(msg string) *Error {
	return &Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Message: msg}
}

func serverError(status int, msg string) *Error {
	return &Error{Status: status, Type: "server_error", Message: msg}
}
