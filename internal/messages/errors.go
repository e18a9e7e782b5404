package messages

import "fmt"

// Error is a request the Messages API refuses: Anthropic's 400
// invalid_request_error. Param is the dotted path of the field at fault,
// as Anthropic writes it ("messages.2.content.0.type").
type Error struct {
	Param   string
	Message string
	// NativeOnly reports a feature only Anthropic itself serves (its
	// server tools and their blocks): the request is fine for a Claude
	// model forwarded natively, and refused for any other.
	NativeOnly bool
}

// Error returns the message as Anthropic phrases it: "param: message".
func (e *Error) Error() string {
	if e.Param == "" {
		return e.Message
	}
	return e.Param + ": " + e.Message
}

// errorf returns an *Error for param.
func errorf(param, format string, args ...any) error {
	return &Error{Param: param, Message: fmt.Sprintf(format, args...)}
}

// nativeOnlyf returns an *Error for param that only a native upstream
// lifts.
func nativeOnlyf(param, format string, args ...any) error {
	return &Error{Param: param, Message: fmt.Sprintf(format, args...), NativeOnly: true}
}

// path joins a parent path and a key or index the Anthropic way.
func path(parent string, key any) string {
	if parent == "" {
		return fmt.Sprint(key)
	}
	return fmt.Sprintf("%s.%v", parent, key)
}
