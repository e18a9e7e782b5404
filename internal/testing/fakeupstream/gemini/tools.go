package fakegemini

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// functionName is Google's rule for function names.
var functionName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

const maxDeclarations = 128

func checkTools(tools gjson.Result) ([]decl, error) {
	if !tools.Exists() {
		return nil, nil
	}
	if !tools.IsArray() {
		return nil, badValue("tools", "expected a list of tools")
	}
	var decls []decl
	for i, t := range tools.Array() {
		at := fmt.Sprintf("tools[%d]", i)
		if err := fields(t, at, "functionDeclarations", "googleSearch", "codeExecution", "urlContext", "googleSearchRetrieval"); err != nil {
			return nil, err
		}
		fds := t.Get("functionDeclarations")
		if fds.Exists() && !fds.IsArray() {
			return nil, badValue(at+".function_declarations", "expected a list")
		}
		for j, fd := range fds.Array() {
			d, err := checkDeclaration(fmt.Sprintf("%s.function_declarations[%d]", at, j), fd)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(decls, func(x decl) bool { return x.name == d.name }) {
				return nil, invalid("Duplicate function declaration found: %s", d.name)
			}
			decls = append(decls, d)
		}
	}
	if len(decls) > maxDeclarations {
		return nil, invalid("* GenerateContentRequest.tools: at most %d function declarations are allowed\n", maxDeclarations)
	}
	return decls, nil
}

func checkDeclaration(at string, fd gjson.Result) (decl, error) {
	if err := fields(fd, at, "name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"); err != nil {
		return decl{}, err
	}
	name := fd.Get("name")
	if name.Type != gjson.String || !functionName.MatchString(name.Str) {
		return decl{}, badValue(at+".name", "Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64.")
	}
	if d := fd.Get("description"); d.Exists() && d.Type != gjson.String {
		return decl{}, badValue(at+".description", "expected a string")
	}
	p, pj := fd.Get("parameters"), fd.Get("parametersJsonSchema")
	switch {
	case p.Exists() && pj.Exists():
		return decl{}, invalid("* GenerateContentRequest.%s: parameters and parameters_json_schema cannot both be set\n", at)
	case p.Exists():
		if err := checkSchema(at+".parameters", p, 0); err != nil {
			return decl{}, err
		}
		if !strings.EqualFold(p.Get("type").String(), "object") || !p.Get("properties").Exists() {
			return decl{}, badValue(at+".parameters.properties", "should be non-empty for OBJECT type")
		}
	case pj.Exists():
		if !pj.IsObject() {
			return decl{}, badValue(at+".parameters_json_schema", "expected an object")
		}
		p = pj
	}
	return decl{name: name.Str, params: p}, nil
}

// schemaKeys are the fields of Gemini's Schema (an OpenAPI 3.0 subset).
var schemaKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

var schemaTypes = []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}

// checkSchema refuses what Google refuses in a Schema: unknown keywords
// (additionalProperties, $ref, $defs, oneOf, allOf, const, …), bad types,
// empty properties and required names that are not properties.
func checkSchema(at string, s gjson.Result, depth int) error {
	if !s.IsObject() {
		return badValue(at, "expected a schema object")
	}
	if depth > 64 {
		return badValue(at, "schema nesting too deep")
	}
	var err error
	s.ForEach(func(k, v gjson.Result) bool {
		if !schemaKeys[k.Str] {
			err = unknownField(k.Str, at)
		} else {
			err = checkKeyword(at, k.Str, v, depth)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	props := s.Get("properties")
	for i, r := range s.Get("required").Array() {
		if _, ok := member(props, r.Str); !ok {
			return badValue(fmt.Sprintf("%s.required[%d]", at, i), "property is not defined")
		}
	}
	return nil
}

func checkKeyword(at, k string, v gjson.Result, depth int) error {
	at = at + "." + k
	switch k {
	case "type":
		if v.Type != gjson.String || !slices.Contains(schemaTypes, strings.ToUpper(v.Str)) {
			return invalid("Invalid value at '%s' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), %s", at, v.Raw)
		}
	case "format", "title", "description", "pattern":
		if v.Type != gjson.String {
			return badValue(at, "expected a string")
		}
	case "nullable":
		if !v.IsBool() {
			return badValue(at, "expected a boolean")
		}
	case "enum", "required", "propertyOrdering":
		if !v.IsArray() || slices.ContainsFunc(v.Array(), func(x gjson.Result) bool { return x.Type != gjson.String }) {
			return badValue(at, "expected a list of strings")
		}
	case "properties":
		return checkProperties(at, v, depth)
	case "items":
		return checkSchema(at, v, depth+1)
	case "anyOf":
		return checkAnyOf(at, v, depth)
	case "minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength":
		if _, err := integer(v, at, 0, 1<<62); err != nil {
			return err
		}
	case "minimum", "maximum":
		return number(v, at, -1e308, 1e308)
	}
	return nil
}

func checkAnyOf(at string, v gjson.Result, depth int) error {
	if !v.IsArray() || len(v.Array()) == 0 {
		return badValue(at, "expected a non-empty list of schemas")
	}
	for i, x := range v.Array() {
		if err := checkSchema(fmt.Sprintf("%s[%d]", at, i), x, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func checkProperties(at string, v gjson.Result, depth int) error {
	if !v.IsObject() {
		return badValue(at, "expected an object")
	}
	n := 0
	var err error
	v.ForEach(func(k, x gjson.Result) bool {
		n++
		err = checkSchema(fmt.Sprintf("%s[%s].value", at, k.Str), x, depth+1)
		return err == nil
	})
	if err == nil && n == 0 {
		return badValue(at, "should be non-empty for OBJECT type")
	}
	return err
}

// member returns an object's member by key, whatever characters the key
// holds.
func member(obj gjson.Result, key string) (gjson.Result, bool) {
	var out gjson.Result
	found := false
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out, found = v, true
		}
		return !found
	})
	return out, found
}

func checkToolConfig(tc gjson.Result, req *request) error {
	if !tc.Exists() {
		return nil
	}
	if err := fields(tc, "tool_config", "functionCallingConfig", "retrievalConfig"); err != nil {
		return err
	}
	fcc := tc.Get("functionCallingConfig")
	if !fcc.Exists() {
		return nil
	}
	const at = "tool_config.function_calling_config"
	if err := fields(fcc, at, "mode", "allowedFunctionNames"); err != nil {
		return err
	}
	if len(req.decls) == 0 {
		return invalid("* GenerateContentRequest.%s: function calling config is set without function_declarations.\n", at)
	}
	if m := fcc.Get("mode"); m.Exists() {
		if !slices.Contains([]string{"MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"}, m.String()) {
			return invalid("Invalid value at '%s.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), %s", at, m.Raw)
		}
		req.mode = m.Str
	}
	names := fcc.Get("allowedFunctionNames")
	if !names.Exists() {
		return nil
	}
	if req.mode != "ANY" && req.mode != "VALIDATED" {
		return invalid("* GenerateContentRequest.%s.allowed_function_names: only allowed when mode is ANY or VALIDATED\n", at)
	}
	for _, n := range names.Array() {
		if !slices.ContainsFunc(req.decls, func(d decl) bool { return d.name == n.Str }) {
			return invalid("* GenerateContentRequest.%s.allowed_function_names: function %q is not declared\n", at, n.String())
		}
		req.allowed = append(req.allowed, n.Str)
	}
	return nil
}
