package responses

import "fmt"

// FieldError is a request the gateway refuses: a 400 in OpenAI's error
// shape (type invalid_request_error) naming the offending parameter.
type FieldError struct {
	// Param is the path of the field, such as "input[2].call_id" ("" for
	// the body as a whole).
	Param string
	// Code is OpenAI's error code: missing_required_parameter,
	// invalid_type, invalid_value, unsupported_value, unknown_parameter
	// or invalid_json.
	Code string
	// Message is the client-facing message.
	Message string
	// NativeOnly reports a feature only OpenAI's own Responses API
	// serves (its built-in tools, their items, freeform tools): the
	// request may go to an OpenAI model natively, and has no chat
	// translation for any other (Chat returns this error).
	NativeOnly bool
}

// Error returns the client-facing message.
func (e *FieldError) Error() string { return e.Message }

func missing(param string) error {
	return &FieldError{Param: param, Code: "missing_required_parameter", Message: fmt.Sprintf("Missing required parameter: '%s'.", param)}
}

func invalidType(param, want string) error {
	return &FieldError{Param: param, Code: "invalid_type", Message: fmt.Sprintf("Invalid type for '%s': expected %s.", param, want)}
}

func invalidValue(param, format string, args ...any) error {
	return &FieldError{Param: param, Code: "invalid_value", Message: fmt.Sprintf("Invalid value for '%s': ", param) + fmt.Sprintf(format, args...)}
}

func unsupported(param, format string, args ...any) error {
	return &FieldError{Param: param, Code: "unsupported_value", Message: fmt.Sprintf(format, args...)}
}

// nativeOnly returns the unsupported_value error of a feature only
// OpenAI's own Responses API serves.
func nativeOnly(param, format string, args ...any) *FieldError {
	return &FieldError{Param: param, Code: "unsupported_value", Message: fmt.Sprintf(format, args...), NativeOnly: true}
}

// noteNativeOnly keeps the first native-only feature the request uses.
func (r *Request) noteNativeOnly(e *FieldError) {
	if r.nativeOnly == nil {
		r.nativeOnly = e
	}
}

func unknownParameter(param string) error {
	return &FieldError{Param: param, Code: "unknown_parameter", Message: fmt.Sprintf("Unknown parameter: '%s'.", param)}
}
