package fakeanthropic

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// apiError is an error response in Anthropic's shape.
type apiError struct {
	status  int
	typ     string
	message string
	header  [][2]string // extra response headers, e.g. retry-after
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.typ, e.message) }

// body renders {"type":"error","error":{"type","message"},"request_id"}.
func (e *apiError) body(reqID string) []byte {
	b := append([]byte(`{"type":"error","error":{"type":`), gjson.AppendJSONString(nil, e.typ)...)
	b = append(b, `,"message":`...)
	b = gjson.AppendJSONString(b, e.message)
	b = append(b, `},"request_id":`...)
	b = gjson.AppendJSONString(b, reqID)
	return append(b, '}')
}

// invalid is a 400 invalid_request_error.
func invalid(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", message: fmt.Sprintf(format, args...)}
}

// The fixture error bodies (fixtures/anthropic/error_*.json).
var (
	errAuth     = &apiError{status: 401, typ: "authentication_error", message: "invalid x-api-key"}
	errAPI      = &apiError{status: 500, typ: "api_error", message: "Internal server error"}
	errTooLarge = &apiError{status: 413, typ: "request_too_large", message: "Request exceeds the maximum allowed number of bytes."}
	errOverload = &apiError{status: 529, typ: "overloaded_error", message: "Overloaded"}
)

// triggers are the magic words (after "fake:") in the last user text that
// make the fake fail on purpose.
var triggers = []string{
	"error:400", "error:401", "error:403", "error:404", "error:413", "error:429",
	"error:500", "error:504", "error:529",
	"error:context",   // 400 "prompt is too long"
	"midstream-error", // streams only: some text, then an overloaded error event
	"hang",            // send nothing until the client goes away
	// with thinking on: a redacted_thinking block before the thinking
	"redacted-thinking",
}

// findTrigger returns the first trigger in text, without "fake:", or "".
func findTrigger(text string) string { return fakeupstream.FindTrigger(text, triggers) }

// triggerError is the response to "fake:error:<what>".
func triggerError(what, model string) *apiError {
	switch what {
	case "400":
		return &apiError{status: 400, typ: "invalid_request_error", message: "max_tokens: Field required"}
	case "context":
		return &apiError{status: 400, typ: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum"}
	case "401":
		return errAuth
	case "403":
		return &apiError{status: 403, typ: "permission_error", message: "Your API key does not have permission to use the specified resource."}
	case "404":
		return errModel(model)
	case "413":
		return errTooLarge
	case "429":
		return &apiError{status: 429, typ: "rate_limit_error", header: rateLimited,
			message: "This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."}
	case "504":
		return &apiError{status: 504, typ: "timeout_error", message: "Request timed out"}
	case "529":
		return errOverload
	}
	return errAPI
}

// statusError is an error with status in Anthropic's shape, for Faults:
// the trigger's when there is one, else a generic one.
func statusError(status int, model string) *apiError {
	if e := triggerError(strconv.Itoa(status), model); e.status == status {
		return e
	}
	typ := "api_error"
	if status < 500 {
		typ = "invalid_request_error"
	}
	return &apiError{status: status, typ: typ, message: http.StatusText(status)}
}

func errModel(model string) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "not_found_error", message: "model: " + model}
}

// rateLimited are the headers of a 429 (fixture headers_429.http).
var rateLimited = [][2]string{
	{"Retry-After", "14"},
	{"Anthropic-Ratelimit-Input-Tokens-Limit", "50000"},
	{"Anthropic-Ratelimit-Input-Tokens-Remaining", "0"},
	{"Anthropic-Ratelimit-Input-Tokens-Reset", "2025-08-21T12:41:14Z"},
}
