package fakeopenai

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// check validates the JSON value v found at param (e.g. "messages[0].content").
type check func(v gjson.Result, param string) error

// fields maps the keys an object accepts to their checks.
type fields map[string]check

// parseBody checks that body is one JSON object.
func parseBody(body []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(body) {
		return gjson.Result{}, errInvalidJSON
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return root, errInvalidJSON
	}
	return root, nil
}

// checkObject validates obj against fs: first unknown keys, then missing
// required keys, then each value in document order. null counts as absent
// for optional keys, as in the OpenAI spec. The top level (prefix "") gets
// OpenAI's "Unrecognized request argument" for unknown keys.
func checkObject(obj gjson.Result, prefix string, fs fields, required ...string) error {
	var err error
	obj.ForEach(func(k, _ gjson.Result) bool {
		if _, ok := fs[k.Str]; !ok {
			if prefix == "" {
				err = errUnrecognized(k.Str)
			} else {
				err = errUnknown(join(prefix, k.Str))
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	for _, name := range required {
		if !obj.Get(name).Exists() {
			return errMissing(join(prefix, name))
		}
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if v.Type == gjson.Null && !slices.Contains(required, k.Str) {
			return true
		}
		err = fs[k.Str](v, join(prefix, k.Str))
		return err == nil
	})
	return err
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func index(param string, i int) string { return param + "[" + strconv.Itoa(i) + "]" }

// field returns obj's member named key, matched literally (no gjson path syntax).
func field(obj gjson.Result, key string) gjson.Result {
	var out gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// isInt reports whether v is a JSON number written without fraction or exponent.
func isInt(v gjson.Result) bool {
	return v.Type == gjson.Number && !strings.ContainsAny(v.Raw, ".eE")
}

// present reports whether v exists and is not null.
func present(v gjson.Result) bool { return v.Exists() && v.Type != gjson.Null }

func str(v gjson.Result, p string) error {
	if v.Type != gjson.String {
		return errType(p, "a string", v)
	}
	return nil
}

func boolean(v gjson.Result, p string) error {
	if !v.IsBool() {
		return errType(p, "a boolean", v)
	}
	return nil
}

func object(v gjson.Result, p string) error {
	if !v.IsObject() {
		return errType(p, "an object", v)
	}
	return nil
}

func strMax(n int) check {
	return func(v gjson.Result, p string) error {
		if err := str(v, p); err != nil {
			return err
		}
		if len(v.Str) > n {
			return badRequest(p, "string_above_max_length", "Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", p, n, len(v.Str))
		}
		return nil
	}
}

func integer(min, max int64) check {
	return func(v gjson.Result, p string) error {
		if !isInt(v) {
			return errType(p, "an integer", v)
		}
		switch n := v.Int(); {
		case n < min:
			return badRequest(p, "integer_below_min_value", "Invalid '%s': integer below minimum value. Expected a value >= %d, but got %d instead.", p, min, n)
		case n > max:
			return badRequest(p, "integer_above_max_value", "Invalid '%s': integer above maximum value. Expected a value <= %d, but got %d instead.", p, max, n)
		}
		return nil
	}
}

func decimal(min, max float64) check {
	return func(v gjson.Result, p string) error {
		if v.Type != gjson.Number {
			return errType(p, "a decimal", v)
		}
		switch {
		case v.Num < min:
			return badRequest(p, "decimal_below_min_value", "Invalid '%s': decimal below minimum value. Expected a value >= %g, but got %s instead.", p, min, v.Raw)
		case v.Num > max:
			return badRequest(p, "decimal_above_max_value", "Invalid '%s': decimal above maximum value. Expected a value <= %g, but got %s instead.", p, max, v.Raw)
		}
		return nil
	}
}

func enum(allowed ...string) check {
	return func(v gjson.Result, p string) error {
		if err := str(v, p); err != nil {
			return err
		}
		if !slices.Contains(allowed, v.Str) {
			return errValue(p, v.Str, allowed)
		}
		return nil
	}
}

func objectOf(fs fields, required ...string) check {
	return func(v gjson.Result, p string) error {
		if err := object(v, p); err != nil {
			return err
		}
		return checkObject(v, p, fs, required...)
	}
}

// arrayOf checks an array of min..max elements, each passing each.
func arrayOf(each check, min, max int) check {
	return func(v gjson.Result, p string) error {
		if !v.IsArray() {
			return errType(p, "an array", v)
		}
		items := v.Array()
		switch {
		case len(items) < min && len(items) == 0:
			return errEmptyArray(p)
		case len(items) < min:
			return badRequest(p, "array_below_min_length", "Invalid '%s': array too short. Expected an array with minimum length %d, but got an array with length %d instead.", p, min, len(items))
		case len(items) > max:
			return errArrayTooLong(p, max, len(items))
		}
		for i, item := range items {
			if err := each(item, index(p, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// stop is a string or up to 4 strings.
func stop(v gjson.Result, p string) error {
	if v.Type == gjson.String {
		return nil
	}
	if !v.IsArray() {
		return errType(p, "one of a string or array of strings", v)
	}
	return arrayOf(str, 1, 4)(v, p)
}

// logitBias maps token ids (as strings) to biases in -100..100.
func logitBias(v gjson.Result, p string) error {
	if err := object(v, p); err != nil {
		return err
	}
	var err error
	v.ForEach(func(k, b gjson.Result) bool {
		if _, e := strconv.ParseUint(k.Str, 10, 32); e != nil {
			err = badRequest(p, "invalid_value", "Invalid key in '%s': %q is not a token id.", p, k.Str)
			return false
		}
		err = decimal(-100, 100)(b, join(p, k.Str))
		return err == nil
	})
	return err
}

// metadata is up to 16 string pairs (keys <= 64, values <= 512 characters).
func metadata(v gjson.Result, p string) error {
	if err := object(v, p); err != nil {
		return err
	}
	n := 0
	var err error
	v.ForEach(func(k, val gjson.Result) bool {
		n++
		if len(k.Str) > 64 {
			err = badRequest(p, "invalid_value", "Invalid '%s': keys must be at most 64 characters.", p)
			return false
		}
		err = strMax(512)(val, join(p, k.Str))
		return err == nil
	})
	if err == nil && n > 16 {
		err = badRequest(p, "object_above_max_properties", "Invalid '%s': too many properties. Expected an object with at most 16 properties, but got %d instead.", p, n)
	}
	return err
}

// toolName is a function name: 1 to 64 of [a-zA-Z0-9_-].
func toolName(v gjson.Result, p string) error {
	if err := strMax(64)(v, p); err != nil {
		return err
	}
	if v.Str == "" {
		return badRequest(p, "string_below_min_length", "Invalid '%s': string too short. Expected a string with minimum length 1, but got an empty string instead.", p)
	}
	for _, r := range v.Str {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		if !ok {
			return badRequest(p, "invalid_value", "Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", p)
		}
	}
	return nil
}

// onlyWhen rejects a field that needs another to be set (e.g. stream_options
// without stream).
func onlyWhen(root gjson.Result, name, message string, ok bool) error {
	if present(root.Get(name)) && !ok {
		return badRequest(name, "", "%s", message)
	}
	return nil
}
