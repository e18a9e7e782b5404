package fakegemini

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/jsonschema"
)

// jsonSchemaKeys are the JSON Schema keywords responseJsonSchema takes
// (inbound-apis.md §7.3). Google documents only these; the fake refuses
// the others, so that an adapter that passes them on is caught.
var jsonSchemaKeys = map[string]bool{
	"$id": true, "$defs": true, "$ref": true, "$anchor": true, "type": true, "format": true,
	"title": true, "description": true, "enum": true, "items": true, "prefixItems": true,
	"minItems": true, "maxItems": true, "minimum": true, "maximum": true, "anyOf": true,
	"oneOf": true, "properties": true, "additionalProperties": true, "required": true,
	"propertyOrdering": true,
}

// checkJSONSchema checks a responseJsonSchema: a boolean or an object of
// supported keywords, with only $-keywords beside a $ref, sub-schemas
// checked alike.
func checkJSONSchema(at string, s gjson.Result, depth int) error {
	switch {
	case depth > 64:
		return badValue(at, "schema nesting too deep")
	case s.IsBool():
		return nil
	case !s.IsObject():
		return badValue(at, "expected a JSON Schema")
	}
	hasRef := s.Get(`\$ref`).Exists()
	var err error
	s.ForEach(func(k, v gjson.Result) bool {
		switch {
		case !jsonSchemaKeys[k.Str]:
			err = badValue(at, fmt.Sprintf("unsupported JSON Schema keyword %q", k.Str))
		case hasRef && !strings.HasPrefix(k.Str, "$"):
			err = badValue(at, fmt.Sprintf("a schema with $ref may not have %q", k.Str))
		default:
			err = checkSubSchemas(at+"."+k.Str, k.Str, v, depth)
		}
		return err == nil
	})
	return err
}

// checkSubSchemas checks the schemas a keyword holds.
func checkSubSchemas(at, k string, v gjson.Result, depth int) error {
	var subs []gjson.Result
	switch k {
	case "items", "additionalProperties":
		subs = []gjson.Result{v}
	case "prefixItems", "anyOf", "oneOf":
		if !v.IsArray() {
			return badValue(at, "expected a list of schemas")
		}
		subs = v.Array()
	case "properties", "$defs":
		if !v.IsObject() {
			return badValue(at, "expected an object of schemas")
		}
		v.ForEach(func(_, x gjson.Result) bool { subs = append(subs, x); return true })
	case "enum":
		for _, x := range v.Array() {
			if x.Type != gjson.String && x.Type != gjson.Number {
				return badValue(at, "enum values must be strings or numbers")
			}
		}
	}
	for _, x := range subs {
		if err := checkJSONSchema(at, x, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// jsonAnswer is JSON valid for the response schema (responseSchema's
// upper-case types read as JSON Schema's), or {"answer": text} without
// one.
func jsonAnswer(schema gjson.Result, text string) string {
	if !schema.Exists() {
		return `{"answer":` + string(gjson.AppendJSONString(nil, text)) + `}`
	}
	return string(jsonschema.ExampleJSON(lowerTypes([]byte(schema.Raw), schema, "")))
}

// lowerTypes rewrites every "type" string of an OpenAPI Schema in lower
// case (JSON Schema's spelling); path is where s sits in b.
func lowerTypes(b []byte, s gjson.Result, path string) []byte {
	if !s.IsObject() && !s.IsArray() {
		return b
	}
	s.ForEach(func(k, v gjson.Result) bool {
		p := gjson.Escape(k.String())
		if path != "" {
			p = path + "." + p
		}
		if k.Str == "type" && v.Type == gjson.String {
			b, _ = sjson.SetBytes(b, p, strings.ToLower(v.Str))
		} else {
			b = lowerTypes(b, v, p)
		}
		return true
	})
	return b
}
