// Package jsonschema builds sample values that satisfy a JSON Schema, for
// the mock provider and the fake upstreams.
package jsonschema

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/tidwall/gjson"
)

// maxDepth bounds how deep example follows nested and recursive schemas.
const maxDepth = 8

// sampleString is the string Example puts where a schema asks for any
// string.
const sampleString = "Paris"

// Example returns a value that satisfies the JSON schema s (nil for an
// empty schema): see example.
func Example(s gjson.Result) any { return example(s, s, 0) }

// example returns a value that satisfies the JSON schema s, resolving
// local references ("#/$defs/x") against root: the const, else the first
// enum value, else the first non-null alternative of anyOf/oneOf/allOf,
// else a value of the first non-null type. Objects carry every listed
// property; arrays have minItems items (at least one, at most maxItems);
// strings and numbers respect their length and range bounds. Patterns
// are not followed.
func example(s, root gjson.Result, depth int) any {
	if depth > maxDepth {
		return nil
	}
	if ref := s.Get("\\$ref").Str; strings.HasPrefix(ref, "#") {
		return example(resolve(root, ref), root, depth+1)
	}
	if c := s.Get("const"); c.Exists() {
		return c.Value()
	}
	if e := s.Get("enum").Array(); len(e) > 0 {
		return e[0].Value()
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if alts := s.Get(key).Array(); len(alts) > 0 {
			return example(firstNonNull(alts), root, depth+1)
		}
	}
	switch schemaType(s) {
	case "object":
		return exampleObject(s, root, depth)
	case "array":
		return exampleArray(s, root, depth)
	case "string":
		return exampleString(s)
	case "integer":
		return int64(math.Ceil(bounded(s, 1)))
	case "number":
		return bounded(s, 1)
	case "boolean":
		return true
	}
	return nil
}

// resolve finds a local reference such as "#/$defs/tag" in root.
func resolve(root gjson.Result, ref string) gjson.Result {
	at := root
	for _, name := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if name == "" {
			continue
		}
		name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
		at = at.Get(gjson.Escape(name))
	}
	return at
}

// firstNonNull returns the first alternative that is not {"type":"null"}.
func firstNonNull(alts []gjson.Result) gjson.Result {
	for _, a := range alts {
		if a.Get("type").Str != "null" {
			return a
		}
	}
	return alts[0]
}

// schemaType is the type s asks for: the first non-null one of a list,
// or inferred from properties or items when type is absent.
func schemaType(s gjson.Result) string {
	t := s.Get("type")
	if t.IsArray() {
		for _, x := range t.Array() {
			if x.Str != "null" {
				return x.Str
			}
		}
		return "null"
	}
	switch {
	case t.Str != "":
		return t.Str
	case s.Get("properties").Exists():
		return "object"
	case s.Get("items").Exists():
		return "array"
	}
	return ""
}

func exampleObject(s, root gjson.Result, depth int) map[string]any {
	out := map[string]any{}
	s.Get("properties").ForEach(func(k, v gjson.Result) bool {
		out[k.Str] = example(v, root, depth+1)
		return true
	})
	for _, req := range s.Get("required").Array() {
		if _, ok := out[req.Str]; !ok {
			out[req.Str] = sampleString
		}
	}
	return out
}

func exampleArray(s, root gjson.Result, depth int) []any {
	n := max(1, int(s.Get("minItems").Int()))
	if m := s.Get("maxItems"); m.Exists() {
		n = min(n, int(m.Int()))
	}
	out := make([]any, n)
	for i := range out {
		out[i] = example(s.Get("items"), root, depth+1)
	}
	return out
}

func exampleString(s gjson.Result) string {
	v := formatSample(s.Get("format").Str)
	if n := int(s.Get("minLength").Int()); len(v) < n {
		v += strings.Repeat("x", n-len(v))
	}
	if m := s.Get("maxLength"); m.Exists() && len(v) > int(m.Int()) {
		v = v[:max(0, m.Int())]
	}
	return v
}

// bounded returns v moved into the schema's minimum and maximum, whole
// when the bound is; an exclusive bound moves it one further in.
func bounded(s gjson.Result, v float64) float64 {
	if lo := s.Get("minimum"); lo.Exists() && v < lo.Float() {
		v = lo.Float()
	}
	if lo := s.Get("exclusiveMinimum"); lo.Exists() && v <= lo.Float() {
		v = lo.Float() + 1
	}
	if hi := s.Get("maximum"); hi.Exists() && v > hi.Float() {
		v = hi.Float()
	}
	if hi := s.Get("exclusiveMaximum"); hi.Exists() && v >= hi.Float() {
		v = hi.Float() - 1
	}
	return v
}

// formatSample is a sample value of a string format JSON Schema names,
// or sampleString.
func formatSample(format string) string {
	switch format {
	case "date-time":
		return "2026-01-01T12:00:00Z"
	case "date":
		return "2026-01-01"
	case "time":
		return "12:00:00Z"
	case "email":
		return "user@example.com"
	case "uri", "url", "uri-reference", "iri":
		return "https://example.com/"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	case "hostname":
		return "example.com"
	case "ipv4":
		return "192.0.2.1"
	case "ipv6":
		return "2001:db8::1"
	case "duration":
		return "P1D"
	}
	return sampleString
}

// ExampleJSON returns JSON that satisfies the JSON schema (local $refs
// resolved, as example does); fake upstreams answer structured-output
// requests with it.
func ExampleJSON(schema []byte) []byte {
	s := gjson.ParseBytes(schema)
	b, _ := json.Marshal(example(s, s, 0)) // values decoded from JSON always marshal
	return b
}
