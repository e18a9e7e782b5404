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
}

// Error returns the client-facing message.
func (e *FieldError) Error() string { return e.Message }

func missing(param string) error {
	return &FieldError{param, "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", param)}
}

func invalidType(param, want string) error {
	return &FieldError{param, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected %s.", param, want)}
}

func invalidValue(param, format string, args ...any) error {
	return &FieldError{param, "invalid_value", fmt.Sprintf("Invalid value for '%s': ", param) + fmt.Sprintf(format, args...)}
}

func unsupported(param, format string, args ...any) error {
	return &FieldError{param, "unsupported_value", fmt.Sprintf(format, args...)}
}

func unknownParameter(param string) error {
	return &FieldError{param, "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", param)}
}
