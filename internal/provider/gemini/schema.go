package gemini

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Function parameters are JSON Schema; Gemini's functionDeclarations take
// an OpenAPI 3.0 subset (see doc.go for the rules). The reducer rewrites
// one into the other.

const (
	// maxSchemaNodes bounds a schema once its $refs are inlined: a few
	// definitions referring to each other could expand exponentially.
	maxSchemaNodes = 2000
	maxSchemaDepth = 40
)

// schemaTypes are the types Gemini's Schema knows, as JSON Schema spells them.
var schemaTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true}

// schemaFormats are the formats Gemini accepts (date-time and enum for
// strings, float and double for numbers, int32 and int64 for integers).
var schemaFormats = map[string]bool{"date-time": true, "enum": true, "float": true, "double": true, "int32": true, "int64": true}

// countKeywords are the non-negative integer keywords kept as they are.
var countKeywords = []string{"minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"}

// errRecursive marks a $ref that refers to itself.
var errRecursive = errors.New("recursive $ref")

// reducer rewrites one tool's parameters.
type reducer struct {
	root  gjson.Result
	refs  []string // $refs being inlined, outermost first; "#" is the root
	nodes int
}

// reduceSchema returns Gemini's version of a function's parameters, or
// nil when the function takes no arguments (Gemini refuses an object
// schema with empty properties).
func reduceSchema(params gjson.Result) (json.RawMessage, error) {
	if !params.IsObject() {
		return nil, nil
	}
	r := &reducer{root: params, refs: []string{"#"}}
	out, err := r.reduce(params, 0)
	if err != nil {
		return nil, err
	}
	if !out.has("properties") {
		return nil, nil
	}
	out.set("type", quoted("object"))
	return json.Marshal(out)
}

// reduce rewrites one schema node.
func (r *reducer) reduce(s gjson.Result, depth int) (*object, error) {
	r.nodes++
	if r.nodes > maxSchemaNodes || depth > maxSchemaDepth {
		return nil, errors.New("the schema is too large or too deep once its $refs are inlined")
	}
	if !s.IsObject() {
		return &object{}, nil // true, false: any value
	}
	_, kw := members(s)
	out, err := r.own(kw, depth)
	if err != nil {
		return nil, err
	}
	if ref, ok := kw["$ref"]; ok {
		base, err := r.ref(ref.String(), depth)
		if err != nil {
			return nil, err
		}
		merge(base, out, true) // keywords next to $ref win
		out = base
	}
	for _, m := range list(kw["allOf"]) {
		sub, err := r.reduce(m, depth+1)
		if err != nil {
			return nil, err
		}
		merge(out, sub, false)
	}
	finish(out)
	return out, nil
}

// own rewrites a node's keywords other than $ref and allOf.
func (r *reducer) own(kw map[string]gjson.Result, depth int) (*object, error) {
	out := &object{}
	typeOf(out, kw["type"])
	keepSimple(out, kw)
	if err := r.properties(out, kw["properties"], depth); err != nil {
		return nil, err
	}
	if req := stringList(kw["required"]); len(req) > 0 {
		out.set("required", req)
	}
	if items := kw["items"]; items.IsObject() {
		sub, err := r.reduce(items, depth+1)
		if err != nil {
			return nil, err
		}
		out.set("items", sub)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if err := r.union(out, kw[k], depth); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// typeOf sets type (lower case) and nullable from a type keyword, which
// may be a list: ["string","null"] is a nullable string; several other
// types become anyOf.
func typeOf(out *object, t gjson.Result) {
	var types []string
	for _, v := range t.Array() { // a single string is a one-element list
		if v.Type != gjson.String {
			continue
		}
		switch lt := strings.ToLower(v.Str); {
		case lt == "null":
			out.set("nullable", json.RawMessage("true"))
		case schemaTypes[lt] && !slices.Contains(types, lt):
			types = append(types, lt)
		}
	}
	switch len(types) {
	case 0:
	case 1:
		out.set("type", quoted(types[0]))
	default:
		alts := make([]any, len(types))
		for i, t := range types {
			o := &object{}
			o.set("type", quoted(t))
			alts[i] = o
		}
		out.set("anyOf", alts)
	}
}

// keepSimple copies the scalar keywords Gemini accepts.
func keepSimple(out *object, kw map[string]gjson.Result) {
	if f := kw["format"]; f.Type == gjson.String && schemaFormats[f.Str] {
		out.set("format", quoted(f.Str))
	}
	for _, k := range []string{"title", "description", "pattern"} {
		if v := kw[k]; v.Type == gjson.String {
			out.set(k, quoted(v.Str))
		}
	}
	if kw["nullable"].Type == gjson.True {
		out.set("nullable", json.RawMessage("true"))
	}
	enumOf(out, kw["enum"], kw["const"])
	for _, k := range countKeywords {
		if v := kw[k]; v.Type == gjson.Number && v.Num >= 0 && v.Num <= 1<<53 && v.Num == math.Trunc(v.Num) {
			out.set(k, json.RawMessage(strconv.FormatInt(int64(v.Num), 10)))
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v := kw[k]; v.Type == gjson.Number && !math.IsInf(v.Num, 0) {
			out.set(k, json.RawMessage(strconv.FormatFloat(v.Num, 'g', -1, 64)))
		}
	}
	if v, ok := kw["example"]; ok {
		out.set("example", json.RawMessage(v.Raw))
	}
	if v := stringList(kw["propertyOrdering"]); len(v) > 0 {
		out.set("propertyOrdering", v)
	}
}

// enumOf keeps an enum of strings (a null member makes the schema
// nullable); an enum with numbers or booleans is dropped, since Gemini's
// enums are strings. A string const becomes a one-value enum.
func enumOf(out *object, enum, cnst gjson.Result) {
	var vals []string
	if cnst.Exists() {
		enum = gjson.Parse("[" + cnst.Raw + "]")
	}
	for _, v := range list(enum) {
		switch v.Type {
		case gjson.String:
			vals = append(vals, v.Str)
		case gjson.Null:
			out.set("nullable", json.RawMessage("true"))
		default:
			return
		}
	}
	if len(vals) > 0 {
		out.set("enum", vals)
	}
}

// properties rewrites each property; a property whose schema is false
// (never allowed) is left out.
func (r *reducer) properties(out *object, props gjson.Result, depth int) error {
	if !props.IsObject() {
		return nil
	}
	keys, m := members(props)
	res := &object{}
	for _, k := range keys {
		if m[k].Type == gjson.False {
			continue
		}
		sub, err := r.reduce(m[k], depth+1)
		if err != nil {
			return err
		}
		res.set(k, sub)
	}
	if res.len() > 0 {
		out.set("properties", res)
	}
	return nil
}

// union rewrites anyOf/oneOf (oneOf loses its exclusivity): null members
// make the schema nullable, a single remaining member is merged into the
// node, several become anyOf.
func (r *reducer) union(out *object, of gjson.Result, depth int) error {
	var alts []any
	for _, m := range list(of) {
		if isNull(m) {
			out.set("nullable", json.RawMessage("true"))
			continue
		}
		sub, err := r.reduce(m, depth+1)
		if err != nil {
			return err
		}
		if sub.len() == 0 {
			return nil // one member allows anything: so does the union
		}
		alts = append(alts, sub)
	}
	switch {
	case len(alts) == 1:
		merge(out, alts[0].(*object), false)
	case len(alts) > 1 && !out.has("anyOf"):
		out.set("anyOf", alts)
	}
	return nil
}

// isNull reports a schema that only allows null: {"type":"null"}.
func isNull(s gjson.Result) bool {
	t := s.Get("type")
	if t.Type == gjson.String {
		return t.Str == "null"
	}
	arr := t.Array()
	return t.IsArray() && len(arr) == 1 && arr[0].Str == "null"
}

// merge copies src's keywords into dst: properties and required are
// united; other keywords are copied when dst lacks them, or always when
// override.
func merge(dst, src *object, override bool) {
	for _, k := range src.keys {
		v := src.vals[k]
		switch k {
		case "properties":
			if dp, ok := dst.vals[k].(*object); ok {
				sp := v.(*object)
				for _, pk := range sp.keys {
					if override || !dp.has(pk) {
						dp.set(pk, sp.vals[pk])
					}
				}
				continue
			}
		case "required":
			if dr, ok := dst.vals[k].([]string); ok {
				for _, n := range v.([]string) {
					if !slices.Contains(dr, n) {
						dr = append(dr, n)
					}
				}
				dst.set(k, dr)
				continue
			}
		}
		if override || !dst.has(k) {
			dst.set(k, v)
		}
	}
}

// finish makes a node consistent: required and propertyOrdering name only
// defined properties, and an object or array says so.
func finish(out *object) {
	props, _ := out.vals["properties"].(*object)
	for _, k := range []string{"required", "propertyOrdering"} {
		names, _ := out.vals[k].([]string)
		var kept []string
		for _, n := range names {
			if props != nil && props.has(n) && !slices.Contains(kept, n) {
				kept = append(kept, n)
			}
		}
		if len(kept) == 0 {
			out.del(k)
		} else {
			out.set(k, kept)
		}
	}
	switch {
	case out.has("type") || out.has("anyOf"):
	case props != nil:
		out.set("type", quoted("object"))
	case out.has("items"):
		out.set("type", quoted("array"))
	case out.has("enum"): // Gemini's enums are strings
		out.set("type", quoted("string"))
	}
}

// list returns the elements of a JSON array; anything else has none.
func list(v gjson.Result) []gjson.Result {
	if !v.IsArray() {
		return nil
	}
	return v.Array()
}

// stringList returns the strings of a JSON array.
func stringList(v gjson.Result) []string {
	var out []string
	for _, s := range list(v) {
		if s.Type == gjson.String {
			out = append(out, s.Str)
		}
	}
	return out
}
