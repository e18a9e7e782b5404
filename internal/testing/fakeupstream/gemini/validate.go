package fakegemini

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
)

// request is a generateContent body the fake accepted, with what its
// answer needs.
type request struct {
	model    string
	contents []gjson.Result
	decls    []decl
	mode     string   // functionCallingConfig.mode, AUTO by default
	allowed  []string // allowedFunctionNames
	gen      generation
}

// decl is a declared function.
type decl struct {
	name   string
	params gjson.Result
}

// generation is what the answer takes from generationConfig.
type generation struct {
	candidates int
	maxTokens  int
	stops      []string
	json       bool
	schema     gjson.Result
	// thoughts is the thoughtsTokenCount: the model thinks unless told
	// not to (thinkingBudget 0).
	thoughts        int
	includeThoughts bool // answers start with a thought part
}

// CheckGenerate returns the error the fake would answer a generateContent
// body for model with, or nil when it would accept it. Adapter tests use it
// to check translated requests without a server.
func CheckGenerate(model string, body []byte) error {
	if kind, ok := modelKind(model); !ok || kind != modeChat {
		return notFound(model, "generateContent")
	}
	_, err := parseGenerate(model, body)
	return err
}

// parseGenerate checks a generateContent body as strictly as Google does
// (stricter where noted in the package tests).
func parseGenerate(model string, body []byte) (*request, error) {
	if !gjson.ValidBytes(body) {
		return nil, invalid("Invalid JSON payload received. Unexpected token.")
	}
	root := gjson.ParseBytes(body)
	if err := fields(root, "", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "cachedContent"); err != nil {
		return nil, err
	}
	req := &request{model: model, mode: "AUTO"}
	contents := root.Get("contents")
	if !contents.IsArray() || len(contents.Array()) == 0 {
		return nil, badValue("contents", "contents is not specified")
	}
	req.contents = contents.Array()
	for i, c := range req.contents {
		if err := checkContent(fmt.Sprintf("contents[%d]", i), c); err != nil {
			return nil, err
		}
	}
	if sys := root.Get("systemInstruction"); sys.Exists() {
		if err := checkSystem(sys); err != nil {
			return nil, err
		}
	}
	var err error
	if req.decls, err = checkTools(root.Get("tools")); err != nil {
		return nil, err
	}
	if err := checkToolConfig(root.Get("toolConfig"), req); err != nil {
		return nil, err
	}
	if err := checkGeneration(root.Get("generationConfig"), &req.gen); err != nil {
		return nil, err
	}
	if err := checkThinking(model, root.Get("generationConfig.thinkingConfig"), &req.gen); err != nil {
		return nil, err
	}
	return req, checkTurns(model, req.contents)
}

// fields checks that v is an object holding only the named fields.
func fields(v gjson.Result, at string, names ...string) error {
	if !v.IsObject() {
		return badValue(orBody(at), "expected an object")
	}
	var err error
	v.ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(names, k.Str) {
			err = unknownField(k.Str, at)
		}
		return err == nil
	})
	return err
}

func orBody(at string) string {
	if at == "" {
		return "body"
	}
	return at
}

func checkContent(at string, c gjson.Result) error {
	if err := fields(c, at, "role", "parts"); err != nil {
		return err
	}
	role := c.Get("role").String()
	if role != "user" && role != "model" {
		return invalid("Please use a valid role: user, model.")
	}
	parts := c.Get("parts")
	if !parts.IsArray() || len(parts.Array()) == 0 {
		return badValue(at+".parts", "contents.parts must not be empty.")
	}
	for j, p := range parts.Array() {
		if err := checkPart(fmt.Sprintf("%s.parts[%d]", at, j), p, role); err != nil {
			return err
		}
	}
	return nil
}

// dataFields are a part's oneof "data": exactly one must be set.
var dataFields = []string{"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"}

func checkPart(at string, p gjson.Result, role string) error {
	if err := fields(p, at, slices.Concat(dataFields, []string{"thought", "thoughtSignature", "videoMetadata"})...); err != nil {
		return err
	}
	set := 0
	for _, f := range dataFields {
		if v := p.Get(f); v.Exists() && !(f == "text" && v.Str == "") {
			set++
		}
	}
	if set != 1 {
		return badValue(at+".data", "required oneof field 'data' must have one initialized field")
	}
	if s := p.Get("thoughtSignature"); s.Exists() && (s.Type != gjson.String || !isBase64(s.Str)) {
		return badValue(at+".thought_signature", "invalid base64 value")
	}
	if t := p.Get("thought"); t.Exists() && !t.IsBool() {
		return badValue(at+".thought", "expected a boolean")
	}
	return checkData(at, p, role)
}

// checkData checks the part's one data field.
func checkData(at string, p gjson.Result, role string) error {
	switch {
	case p.Get("text").Exists():
		if p.Get("text").Type != gjson.String {
			return badValue(at+".text", "expected a string")
		}
	case p.Get("inlineData").Exists():
		return checkBlob(at+".inline_data", p.Get("inlineData"))
	case p.Get("fileData").Exists():
		f := p.Get("fileData")
		if err := fields(f, at+".file_data", "mimeType", "fileUri"); err != nil {
			return err
		}
		if f.Get("fileUri").String() == "" {
			return badValue(at+".file_data.file_uri", "must not be empty")
		}
	case p.Get("functionCall").Exists():
		return checkCall(at+".function_call", p.Get("functionCall"), role)
	case p.Get("functionResponse").Exists():
		return checkResponse(at+".function_response", p.Get("functionResponse"), role)
	}
	return nil
}

func checkBlob(at string, b gjson.Result) error {
	if err := fields(b, at, "mimeType", "data"); err != nil {
		return err
	}
	if b.Get("mimeType").String() == "" {
		return badValue(at+".mime_type", "must not be empty")
	}
	if d := b.Get("data"); d.Type != gjson.String || !isBase64(d.Str) {
		return badValue(at+".data", "invalid base64 value")
	}
	return nil
}

func checkCall(at string, fc gjson.Result, role string) error {
	if err := fields(fc, at, "name", "args", "id"); err != nil {
		return err
	}
	if role != "model" {
		return invalid("* GenerateContentRequest.%s: function calls can only be in model turns\n", at)
	}
	if !functionName.MatchString(fc.Get("name").String()) {
		return badValue(at+".name", "Invalid function name.")
	}
	if a := fc.Get("args"); a.Exists() && !a.IsObject() {
		return badValue(at+".args", "expected an object")
	}
	return nil
}

func checkResponse(at string, fr gjson.Result, role string) error {
	if err := fields(fr, at, "name", "response", "id", "willContinue", "scheduling"); err != nil {
		return err
	}
	if role != "user" {
		return invalid("* GenerateContentRequest.%s: function responses can only be in user turns\n", at)
	}
	if !functionName.MatchString(fr.Get("name").String()) {
		return badValue(at+".name", "Invalid function name.")
	}
	if !fr.Get("response").IsObject() {
		return badValue(at+".response", "expected an object")
	}
	return nil
}

func checkSystem(sys gjson.Result) error {
	const at = "system_instruction"
	if err := fields(sys, at, "role", "parts"); err != nil {
		return err
	}
	parts := sys.Get("parts")
	if !parts.IsArray() || len(parts.Array()) == 0 {
		return badValue(at+".parts", "contents.parts must not be empty.")
	}
	for j, p := range parts.Array() {
		pat := fmt.Sprintf("%s.parts[%d]", at, j)
		if err := fields(p, pat, "text"); err != nil {
			return err
		}
		if t := p.Get("text"); t.Type != gjson.String || t.Str == "" {
			return badValue(pat+".data", "required oneof field 'data' must have one initialized field")
		}
	}
	return nil
}

// isBase64 reports standard or URL-safe base64, padded or not, as proto
// JSON accepts for bytes.
func isBase64(s string) bool {
	_, ok := decodeBase64(s)
	return ok
}

func decodeBase64(s string) ([]byte, bool) {
	if s == "" {
		return nil, false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

// number checks an optional number within [min, max].
func number(v gjson.Result, at string, min, max float64) error {
	if v.Exists() && (v.Type != gjson.Number || v.Num < min || v.Num > max) {
		return badValue(at, fmt.Sprintf("must be a number between %g and %g", min, max))
	}
	return nil
}

// integer checks an optional integer within [min, max] and returns it (0
// when absent).
func integer(v gjson.Result, at string, min, max int64) (int64, error) {
	if !v.Exists() {
		return 0, nil
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if v.Type != gjson.Number || err != nil || n < min || n > max || math.IsInf(v.Num, 0) {
		return 0, badValue(at, fmt.Sprintf("must be an integer between %d and %d", min, max))
	}
	return n, nil
}
