package api

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
)

// Request validation reads the body with a scanner (no full decode) and
// names the offending field in param, as OpenAI does.

func invalidType(param, want string) *Error {
	return badRequest(param, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected %s.", param, want))
}

func invalidValue(param, msg string) *Error {
	return badRequest(param, "invalid_value", fmt.Sprintf("Invalid value for '%s': %s", param, msg))
}

func missing(param string) *Error {
	return badRequest(param, "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", param))
}

// fields are a body's top-level fields, found in one walk of the body.
// A chat body's checks read some twenty fields: looking each up in the
// body (gjson.Get) walked the body, its messages included, once for each
// (issue 18). Values point into the body (jsonscan.View): copy what
// outlives it, as the body's buffer is reused.
type fields struct {
	n    int
	head [16]field
	more []field // those past the first len(head)
}

type field struct {
	key string
	val gjson.Result
}

// read finds the top-level fields of body, a JSON object.
func (f *fields) read(body []byte) {
	gjson.Parse(jsonscan.View(body)).ForEach(func(k, v gjson.Result) bool {
		if f.n < len(f.head) {
			f.head[f.n] = field{k.Str, v}
			f.n++
		} else {
			f.more = append(f.more, field{k.Str, v})
		}
		return true
	})
}

// get returns the field named name (the first, as gjson.Get would), or
// a Result that does not exist.
func (f *fields) get(name string) gjson.Result {
	for i := range f.n {
		if f.head[i].key == name {
			return f.head[i].val
		}
	}
	for i := range f.more {
		if f.more[i].key == name {
			return f.more[i].val
		}
	}
	return gjson.Result{}
}

// sizes returns the fields of the body that size its answers, read in
// this walk for the rate limits (gateway.Sizes), with the number of
// prompts its validation counted: a legacy completion's, 1 for a chat,
// whose "prompt" member, if any, is neither validated nor walked.
func (f *fields) sizes(prompts int) gateway.Sizes {
	return gateway.Sizes{Read: true,
		MaxCompletionTokens: f.get("max_completion_tokens").Int(), MaxTokens: f.get("max_tokens").Int(),
		N: f.get("n").Int(), BestOf: f.get("best_of").Int(), Prompts: int64(prompts),
	}
}

// owned returns v with a text of its own, as gjson.GetBytes gives: for
// values that outlive the body.
func owned(v gjson.Result) gjson.Result {
	if !v.Exists() {
		return v
	}
	return gjson.Parse(strings.Clone(v.Raw))
}

// present reports a field that is set and not null.
func present(r gjson.Result) bool { return r.Exists() && r.Type != gjson.Null }

// checkModel validates "model" and returns it.
func checkModel(f *fields) (string, *Error) {
	m := f.get("model")
	switch {
	case !present(m):
		return "", badRequest("model", "missing_required_parameter", "You must provide a model parameter.")
	case m.Type != gjson.String:
		return "", invalidType("model", "a string")
	case m.Str == "":
		return "", invalidValue("model", "expected a model ID, got an empty string.")
	}
	return strings.Clone(m.Str), nil
}

// checkNumber validates an optional number within [min, max].
func checkNumber(f *fields, name string, min, max float64) *Error {
	v := f.get(name)
	if !present(v) {
		return nil
	}
	if v.Type != gjson.Number {
		return invalidType(name, "a number")
	}
	if v.Num < min || v.Num > max {
		return invalidValue(name, fmt.Sprintf("expected a number between %g and %g, got %s.", min, max, v.Raw))
	}
	return nil
}

// isInt reports whether a JSON number is an integer.
func isInt(v gjson.Result) bool {
	if v.Type != gjson.Number {
		return false
	}
	_, err := strconv.ParseInt(v.Raw, 10, 64)
	return err == nil
}

// checkInt validates an optional integer within [min, max].
func checkInt(f *fields, name string, min, max int64) *Error {
	v := f.get(name)
	if !present(v) {
		return nil
	}
	if !isInt(v) {
		return invalidType(name, "an integer")
	}
	if v.Int() < min || v.Int() > max {
		if min == 1 && max == maxInt {
			return invalidValue(name, fmt.Sprintf("expected a positive integer, got %s.", v.Raw))
		}
		return invalidValue(name, fmt.Sprintf("expected an integer between %d and %d, got %s.", min, max, v.Raw))
	}
	return nil
}

const maxInt = int64(1<<63 - 1)

// checkBool validates an optional boolean.
func checkBool(f *fields, name string) *Error {
	v := f.get(name)
	if present(v) && v.Type != gjson.True && v.Type != gjson.False {
		return invalidType(name, "a boolean")
	}
	return nil
}

// checkStop validates "stop": a string or an array of at most 4 strings.
func checkStop(f *fields) *Error {
	v := f.get("stop")
	if !present(v) || v.Type == gjson.String {
		return nil
	}
	if !v.IsArray() {
		return invalidType("stop", "a string or an array of strings")
	}
	arr := v.Array()
	if len(arr) > 4 {
		return invalidValue("stop", fmt.Sprintf("expected at most 4 stop sequences, got %d.", len(arr)))
	}
	for i, s := range arr {
		if s.Type != gjson.String {
			return invalidType(fmt.Sprintf("stop[%d]", i), "a string")
		}
	}
	return nil
}

// checkStreamOptions validates stream_options, which needs stream: true.
func checkStreamOptions(f *fields) *Error {
	v := f.get("stream_options")
	if !present(v) {
		return nil
	}
	if !v.IsObject() {
		return invalidType("stream_options", "an object")
	}
	if !f.get("stream").Bool() {
		return invalidValue("stream_options", "stream_options is only allowed when stream is true.")
	}
	if u := v.Get("include_usage"); present(u) && u.Type != gjson.True && u.Type != gjson.False {
		return invalidType("stream_options.include_usage", "a boolean")
	}
	return nil
}

// checkSampling validates the fields chat and legacy completions share.
func checkSampling(f *fields) *Error {
	for _, check := range []func() *Error{
		func() *Error { return checkNumber(f, "temperature", 0, 2) },
		func() *Error { return checkNumber(f, "top_p", 0, 1) },
		func() *Error { return checkNumber(f, "presence_penalty", -2, 2) },
		func() *Error { return checkNumber(f, "frequency_penalty", -2, 2) },
		func() *Error { return checkInt(f, "max_tokens", 1, maxInt) },
		func() *Error { return checkInt(f, "n", 1, 128) },
		func() *Error { return checkInt(f, "seed", -maxInt-1, maxInt) },
		func() *Error { return checkBool(f, "stream") },
		func() *Error { return checkStreamOptions(f) },
		func() *Error { return checkStop(f) },
		func() *Error { return checkLogitBias(f) },
		func() *Error { return checkString(f, "user") },
	} {
		if e := check(); e != nil {
			return e
		}
	}
	return nil
}

func checkString(f *fields, name string) *Error {
	v := f.get(name)
	if present(v) && v.Type != gjson.String {
		return invalidType(name, "a string")
	}
	return nil
}

func checkLogitBias(f *fields) *Error {
	v := f.get("logit_bias")
	if !present(v) {
		return nil
	}
	if !v.IsObject() {
		return invalidType("logit_bias", "an object mapping token IDs to numbers")
	}
	var e *Error
	v.ForEach(func(k, b gjson.Result) bool {
		if _, err := strconv.Atoi(k.Str); err != nil {
			e = invalidValue("logit_bias", fmt.Sprintf("keys must be token IDs, got %q.", k.Str))
		} else if b.Type != gjson.Number || b.Num < -100 || b.Num > 100 {
			e = invalidValue("logit_bias", fmt.Sprintf("bias for token %s must be a number between -100 and 100.", k.Str))
		}
		return e == nil
	})
	return e
}

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
