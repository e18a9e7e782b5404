package responses

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"
)

// Typed reads of request members: each names the member in its error.
// JSON null counts as absent, as the Responses API has it.

// present reports whether v is set to something other than null.
func present(v gjson.Result) bool { return v.Exists() && v.Type != gjson.Null }

// optString returns v's string ("" when absent).
func optString(v gjson.Result, param string) (string, error) {
	if !present(v) {
		return "", nil
	}
	if v.Type != gjson.String {
		return "", invalidType(param, "a string")
	}
	return v.Str, nil
}

// reqString returns v's string, which must be present.
func reqString(v gjson.Result, param string) (string, error) {
	if !present(v) {
		return "", missing(param)
	}
	return optString(v, param)
}

// optEnum returns v's string, which must be one of values when present.
func optEnum(v gjson.Result, param string, values ...string) (string, error) {
	s, err := optString(v, param)
	if err != nil || s == "" && !present(v) {
		return s, err
	}
	for _, x := range values {
		if s == x {
			return s, nil
		}
	}
	return "", invalidValue(param, "'%s' is not one of %s.", s, quoteList(values))
}

// optBool returns v's boolean (nil when absent).
func optBool(v gjson.Result, param string) (*bool, error) {
	if !present(v) {
		return nil, nil
	}
	if v.Type != gjson.True && v.Type != gjson.False {
		return nil, invalidType(param, "a boolean")
	}
	b := v.Bool()
	return &b, nil
}

// optNumber returns v's number as written (nil when absent), which must
// lie in [lo, hi].
func optNumber(v gjson.Result, param string, lo, hi float64) (json.RawMessage, error) {
	if !present(v) {
		return nil, nil
	}
	if v.Type != gjson.Number {
		return nil, invalidType(param, "a number")
	}
	if f := v.Float(); f < lo || f > hi {
		return nil, invalidValue(param, "%s is out of range: expected a number from %g to %g.", v.Raw, lo, hi)
	}
	return json.RawMessage(v.Raw), nil
}

// optInt returns v's integer (nil when absent), which must be at least lo.
func optInt(v gjson.Result, param string, lo int64) (*int64, error) {
	if !present(v) {
		return nil, nil
	}
	if v.Type != gjson.Number || v.Float() != float64(v.Int()) {
		return nil, invalidType(param, "an integer")
	}
	n := v.Int()
	if n < lo {
		return nil, invalidValue(param, "%d is below the minimum of %d.", n, lo)
	}
	return &n, nil
}

// compact returns v's JSON without insignificant space.
func compact(v gjson.Result) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(v.Raw)); err != nil {
		return json.RawMessage(v.Raw)
	}
	return b.Bytes()
}

func quoteList(values []string) string {
	s := ""
	for i, v := range values {
		if i > 0 {
			s += ", "
		}
		s += "'" + v + "'"
	}
	return s
}
