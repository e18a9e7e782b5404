package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A json_schema response format goes to Gemini as responseJsonSchema,
// which takes real JSON Schema but only some of its keywords (see doc.go).
// The filter keeps those, recursively, and turns the few others that have
// an equivalent into it.

// schemaFilter rewrites one response schema.
type schemaFilter struct {
	nodes int
}

// responseJSONSchema returns the schema as responseJsonSchema takes it.
func responseJSONSchema(s gjson.Result) (json.RawMessage, error) {
	if !s.IsObject() {
		return nil, errors.New("expected a JSON Schema object")
	}
	f := &schemaFilter{}
	out, err := f.node(s, 0)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// node rewrites one schema: true and false stay as they are.
func (f *schemaFilter) node(s gjson.Result, depth int) (any, error) {
	f.nodes++
	switch {
	case f.nodes > maxSchemaNodes || depth > maxSchemaDepth:
		return nil, errors.New("the schema is too large or too deep")
	case s.IsBool():
		return json.RawMessage(s.Raw), nil
	case !s.IsObject():
		return nil, fmt.Errorf("expected a schema, got %s", s.Raw)
	}
	keys, kw := members(s)
	out := &object{}
	for _, k := range keys {
		if err := f.keyword(out, k, kw[k], depth); err != nil {
			return nil, err
		}
	}
	if depth == 0 {
		if err := f.definitions(out, kw["definitions"]); err != nil {
			return nil, err
		}
	}
	if c := kw["const"]; c.Type == gjson.String || c.Type == gjson.Number {
		out.set("enum", []json.RawMessage{json.RawMessage(c.Raw)})
	}
	for _, m := range list(kw["allOf"]) {
		sub, err := f.node(m, depth+1)
		if err != nil {
			return nil, err
		}
		if o, ok := sub.(*object); ok {
			merge(out, o, false)
		}
	}
	if out.has("$ref") { // Gemini allows only $-keywords next to $ref
		for _, k := range append([]string(nil), out.keys...) {
			if !strings.HasPrefix(k, "$") {
				out.del(k)
			}
		}
	}
	return out, nil
}

// keyword copies one keyword Gemini takes, rewriting sub-schemas; others
// are left out.
func (f *schemaFilter) keyword(out *object, k string, v gjson.Result, depth int) error {
	switch k {
	case "$id", "$anchor", "title", "description", "format":
		if v.Type == gjson.String {
			out.set(k, quoted(v.Str))
		}
	case "$ref":
		return refOf(out, v)
	case "type":
		if v.Type == gjson.String || (v.IsArray() && len(stringList(v)) == len(v.Array())) {
			out.set(k, json.RawMessage(v.Raw))
		}
	case "enum":
		if vals := enumValues(v); len(vals) > 0 {
			out.set(k, vals)
		}
	case "minItems", "maxItems":
		if v.Type == gjson.Number && v.Num >= 0 && v.Num <= 1<<53 && v.Num == math.Trunc(v.Num) {
			out.set(k, json.RawMessage(strconv.FormatInt(int64(v.Num), 10)))
		}
	case "minimum", "maximum":
		if v.Type == gjson.Number {
			out.set(k, json.RawMessage(v.Raw))
		}
	case "required", "propertyOrdering":
		if names := stringList(v); len(names) > 0 {
			out.set(k, names)
		}
	case "items", "additionalProperties":
		if v.IsArray() && k == "items" { // draft-07 tuples
			return f.schemas(out, "prefixItems", v, depth)
		}
		return f.sub(out, k, v, depth)
	case "prefixItems", "anyOf", "oneOf":
		return f.schemas(out, k, v, depth)
	case "properties", "$defs":
		return f.members(out, k, v, depth)
	}
	return nil
}

// refOf keeps a local $ref; definitions move to $defs (definitions).
func refOf(out *object, v gjson.Result) error {
	if v.Type != gjson.String {
		return errors.New("$ref must be a string")
	}
	ref, ok := strings.CutPrefix(v.Str, "#/definitions/")
	switch {
	case ok:
		ref = "#/$defs/" + ref
	case strings.HasPrefix(v.Str, "#"):
		ref = v.Str
	default:
		return fmt.Errorf("$ref %q: only local references (#/…) are supported", v.Str)
	}
	out.set("$ref", quoted(ref))
	return nil
}

// enumValues keeps the strings and numbers of an enum (Gemini takes no
// others): the answer still fits the client's schema.
func enumValues(v gjson.Result) []json.RawMessage {
	var vals []json.RawMessage
	for _, x := range list(v) {
		if x.Type == gjson.String || x.Type == gjson.Number {
			vals = append(vals, json.RawMessage(x.Raw))
		}
	}
	return vals
}

// sub rewrites a keyword holding one schema.
func (f *schemaFilter) sub(out *object, k string, v gjson.Result, depth int) error {
	s, err := f.node(v, depth+1)
	if err == nil {
		out.set(k, s)
	}
	return err
}

// schemas rewrites a keyword holding a list of schemas.
func (f *schemaFilter) schemas(out *object, k string, v gjson.Result, depth int) error {
	if !v.IsArray() {
		return fmt.Errorf("%s must be a list of schemas", k)
	}
	var subs []any
	for _, m := range v.Array() {
		s, err := f.node(m, depth+1)
		if err != nil {
			return err
		}
		subs = append(subs, s)
	}
	if len(subs) > 0 && !out.has(k) {
		out.set(k, subs)
	}
	return nil
}

// members rewrites a keyword mapping names to schemas. A property whose
// schema is false (never allowed) is left out.
func (f *schemaFilter) members(out *object, k string, v gjson.Result, depth int) error {
	if !v.IsObject() {
		return fmt.Errorf("%s must be an object of schemas", k)
	}
	res, _ := out.vals[k].(*object)
	if res == nil {
		res = &object{}
	}
	names, m := members(v)
	for _, name := range names {
		if k == "properties" && m[name].Type == gjson.False {
			continue
		}
		s, err := f.node(m[name], depth+1)
		if err != nil {
			return err
		}
		res.set(name, s)
	}
	if res.len() > 0 {
		out.set(k, res)
	}
	return nil
}

// definitions moves the root's draft-07 definitions into $defs, where
// the rewritten $refs point.
func (f *schemaFilter) definitions(out *object, defs gjson.Result) error {
	if !defs.Exists() {
		return nil
	}
	if existing, ok := out.vals["$defs"].(*object); ok {
		names, _ := members(defs)
		for _, name := range names {
			if existing.has(name) {
				return fmt.Errorf("%q is both in $defs and in definitions", name)
			}
		}
	}
	return f.members(out, "$defs", defs, 0)
}
