package fakeopenai

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// apiError is an error response in OpenAI's shape: a status plus the
// body's error object. Empty param and code are sent as null.
type apiError struct {
	status  int
	message string
	typ     string
	param   string
	code    string
	header  [][2]string // extra response headers, e.g. retry-after
}

func (e *apiError) Error() string { return e.message }

// body renders {"error":{"message","type","param","code"}}.
func (e *apiError) body() []byte {
	b := make([]byte, 0, 96+len(e.message))
	b = append(b, `{"error":{"message":`...)
	b = gjson.AppendJSONString(b, e.message)
	b = append(b, `,"type":`...)
	b = gjson.AppendJSONString(b, e.typ)
	b = append(b, `,"param":`...)
	b = appendNullable(b, e.param)
	b = append(b, `,"code":`...)
	b = appendNullable(b, e.code)
	return append(b, "}}"...)
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return gjson.AppendJSONString(b, s)
}

// badRequest is a 400 invalid_request_error.
func badRequest(param, code, format string, args ...any) error {
	return &apiError{
		status:  http.StatusBadRequest,
		message: fmt.Sprintf(format, args...),
		typ:     "invalid_request_error",
		param:   param,
		code:    code,
	}
}

func errMissing(param string) error {
	return badRequest(param, "missing_required_parameter", "Missing required parameter: '%s'.", param)
}

func errType(param, want string, got gjson.Result) error {
	return badRequest(param, "invalid_type", "Invalid type for '%s': expected %s, but got %s instead.", param, want, typeName(got))
}

func errValue(param, got string, allowed []string) error {
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	list := strings.Join(quoted, "")
	switch n := len(quoted); {
	case n == 2:
		list = quoted[0] + " and " + quoted[1]
	case n > 2:
		list = strings.Join(quoted[:n-1], ", ") + ", and " + quoted[n-1]
	}
	return badRequest(param, "invalid_value", "Invalid value: '%s'. Supported values are: %s.", got, list)
}

// errUnrecognized is OpenAI's answer to an unknown top-level field.
func errUnrecognized(name string) error {
	return badRequest("", "", "Unrecognized request argument supplied: %s", name)
}

// errUnknown is OpenAI's answer to an unknown nested field.
func errUnknown(param string) error {
	return badRequest(param, "unknown_parameter", "Unknown parameter: '%s'.", param)
}

func errEmptyArray(param string) error {
	return badRequest(param, "empty_array", "Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", param)
}

func errArrayTooLong(param string, max, got int) error {
	return badRequest(param, "array_above_max_length", "Invalid '%s': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", param, max, got)
}

func errUnsupportedParam(param string, hint string) error {
	return badRequest(param, "unsupported_parameter", "Unsupported parameter: '%s' is not supported with this model.%s", param, hint)
}

func errModelNotFound(model string) error {
	return &apiError{
		status:  http.StatusNotFound,
		message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model),
		typ:     "invalid_request_error",
		code:    "model_not_found",
	}
}

// errWrongEndpoint is the 404 OpenAI sends for a model on the wrong endpoint.
func errWrongEndpoint(message string) error {
	return &apiError{status: http.StatusNotFound, message: message, typ: "invalid_request_error", param: "model"}
}

func errContextLength(limit, got int) error {
	return badRequest("messages", "context_length_exceeded", "This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, got)
}

var errInvalidJSON = badRequest("", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please visit https://platform.openai.com/docs/guides/text-generation.)")

var errNoKey = &apiError{
	status:  http.StatusUnauthorized,
	message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
	typ:     "invalid_request_error",
}

func errBadKey(key string) error {
	return &apiError{
		status:  http.StatusUnauthorized,
		message: fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", maskKey(key)),
		typ:     "invalid_request_error",
		code:    "invalid_api_key",
	}
}

// maskKey shows at most the first 3 and last 4 characters of a key.
func maskKey(k string) string {
	if len(k) < 12 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

// typeName names a JSON value the way OpenAI's validation messages do.
func typeName(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		if isInt(v) {
			return "an integer"
		}
		return "a decimal"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Null:
		return "null"
	}
	if v.IsArray() {
		return "an array"
	}
	return "an object"
}

// triggerError is the response to a "fake:error:<what>" trigger.
func triggerError(what, model string) error {
	switch what {
	case "400":
		return errContextLength(128000, 131072)
	case "401":
		return errBadKey("sk-proj-fakefakefakefakeabcd")
	case "403":
		return &apiError{status: 403, message: "Country, region, or territory not supported", typ: "request_forbidden", code: "unsupported_country_region_territory"}
	case "404":
		return errModelNotFound(model)
	case "429":
		return &apiError{
			status:  http.StatusTooManyRequests,
			message: fmt.Sprintf("Rate limit reached for %s in organization org-fake on tokens per min (TPM): Limit 200000, Used 199000, Requested 2400. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.", model),
			typ:     "tokens",
			code:    "rate_limit_exceeded",
			header:  rateLimited,
		}
	case "quota":
		return &apiError{status: 429, message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", typ: "insufficient_quota", code: "insufficient_quota"}
	case "503":
		return &apiError{status: 503, message: "The engine is currently overloaded, please try again later", typ: "server_error"}
	case "529":
		return &apiError{status: 529, message: "The server is overloaded. Please try again later.", typ: "server_error", code: "overloaded"}
	}
	return errServer
}

// statusError is an error with status in OpenAI's shape, for Faults: the
// trigger's when there is one, else a generic one.
func statusError(status int, model string) *apiError {
	var e *apiError
	if errors.As(triggerError(strconv.Itoa(status), model), &e) && e.status == status {
		return e
	}
	typ := "server_error"
	if status < 500 {
		typ = "invalid_request_error"
	}
	return &apiError{status: status, message: http.StatusText(status), typ: typ}
}

var errServer = &apiError{status: 500, message: "The server had an error while processing your request. Sorry about that!", typ: "server_error"}

// rateLimited are the headers of a 429 (fixture headers_429_rate_limit.http).
var rateLimited = [][2]string{
	{"Retry-After", "2"},
	{"X-Ratelimit-Limit-Requests", "10000"},
	{"X-Ratelimit-Limit-Tokens", "200000"},
	{"X-Ratelimit-Remaining-Requests", "9998"},
	{"X-Ratelimit-Remaining-Tokens", "0"},
	{"X-Ratelimit-Reset-Requests", "12ms"},
	{"X-Ratelimit-Reset-Tokens", "2s"},
}
