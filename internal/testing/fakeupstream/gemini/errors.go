package fakegemini

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"
)

// apiError is an error response in Google's shape,
// {"error":{"code","message","status","details"?}}.
type apiError struct {
	code    int
	status  string // canonical code, e.g. INVALID_ARGUMENT
	message string
	details string // raw JSON array, "" for none
	header  [][2]string
	cause   error // a sentinel callers match with errors.Is, or nil
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.code, e.status, e.message) }

func (e *apiError) Unwrap() error { return e.cause }

// ErrUnknownSignature is what CheckGenerate's error wraps when a Gemini 3
// call carries a well-formed thought signature the fake did not issue: an
// adapter cannot tell a forged signature from a real one, only put back
// what it was given.
var ErrUnknownSignature = errors.New("thought signature not issued by this server")

func (e *apiError) body() []byte {
	b := []byte(`{"error":{"code":`)
	b = strconv.AppendInt(b, int64(e.code), 10)
	b = append(b, `,"message":`...)
	b = gjson.AppendJSONString(b, e.message)
	b = append(b, `,"status":`...)
	b = gjson.AppendJSONString(b, e.status)
	if e.details != "" {
		b = append(b, `,"details":`...)
		b = append(b, e.details...)
	}
	return append(b, "}}"...)
}

// fail writes err as a Google error response.
func (c *call) fail(err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = errInternal
	}
	h := c.w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	for _, kv := range e.header {
		h.Set(kv[0], kv[1])
	}
	c.w.WriteHeader(e.code)
	c.w.Write(e.body())
}

// invalid is a 400 INVALID_ARGUMENT.
func invalid(format string, args ...any) *apiError {
	return &apiError{code: http.StatusBadRequest, status: "INVALID_ARGUMENT", message: fmt.Sprintf(format, args...)}
}

// unknownField is Google's answer to a field its proto does not have.
func unknownField(name, at string) *apiError {
	if at == "" {
		return invalid("Invalid JSON payload received. Unknown name %q: Cannot find field.", name)
	}
	return invalid("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", name, at)
}

// badValue is a field with a value of the wrong type or range.
func badValue(at, want string) *apiError {
	return invalid("* GenerateContentRequest.%s: %s\n", at, want)
}

func notFound(model, method string) *apiError {
	return &apiError{code: http.StatusNotFound, status: "NOT_FOUND", message: fmt.Sprintf(
		"models/%s is not found for API version v1beta, or is not supported for %s. Call ListModels to see the list of available models and their supported methods.", model, method)}
}

// The error bodies below are the fixtures' (gemini/error_*.json).

var errNoKey = &apiError{code: 403, status: "PERMISSION_DENIED",
	message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."}

var errBadKey = &apiError{code: 400, status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.",
	details: `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]`}

var errTurnOrder = invalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")

var errInternal = &apiError{code: 500, status: "INTERNAL",
	message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"}

func errMissingSignature(name string, position int) *apiError {
	return invalid("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", name, position)
}

func errRateLimit(model string) *apiError {
	return &apiError{code: 429, status: "RESOURCE_EXHAUSTED",
		message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
		details: `[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaDimensions":{"location":"global","model":` +
			string(gjson.AppendJSONString(nil, model)) + `},"quotaValue":"10"}]},{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"27s"}]`}
}

// statusError is an error with code in Google's shape, for Faults: the
// trigger's when there is one, else one with the canonical status Google
// pairs with the code.
func statusError(code int, model string) *apiError {
	if e := triggerError(strconv.Itoa(code), model); e.code == code {
		return e
	}
	status := "INTERNAL"
	switch {
	case code == 401:
		status = "UNAUTHENTICATED"
	case code == 408 || code == 504:
		status = "DEADLINE_EXCEEDED"
	case code == 502 || code == 503:
		status = "UNAVAILABLE"
	case code < 500:
		status = "INVALID_ARGUMENT"
	}
	return &apiError{code: code, status: status, message: http.StatusText(code)}
}

// triggerError is the answer to "fake:error:<status>".
func triggerError(status, model string) *apiError {
	switch status {
	case "400":
		return invalid("* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n")
	case "403":
		return errNoKey
	case "404":
		return notFound(model, "generateContent")
	case "429":
		return errRateLimit(model)
	case "503":
		return &apiError{code: 503, status: "UNAVAILABLE", message: "The model is overloaded. Please try again later."}
	case "504":
		return &apiError{code: 504, status: "DEADLINE_EXCEEDED", message: "Deadline expired before operation could complete."}
	}
	return errInternal
}
