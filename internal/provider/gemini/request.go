package gemini

import (
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// chatRequest is a chat request translated for Gemini.
type chatRequest struct {
	body    []byte
	legacy  bool // the client used functions: answers carry function_call
	oneCall bool // parallel_tool_calls false: answers carry one call
}

// translateChat turns the client's OpenAI chat body into a
// generateContent body. Refusals are *provider.Error KindBadRequest
// naming the OpenAI field.
func translateChat(r *provider.Request) (chatRequest, error) {
	if !gjson.ValidBytes(r.Body) {
		return chatRequest{}, refuse(codeInvalid, "", "The request body is not valid JSON.")
	}
	root := gjson.ParseBytes(r.Body)
	if !root.IsObject() {
		return chatRequest{}, refuse(codeInvalid, "", "The request body must be a JSON object.")
	}
	if err := unsupported(root); err != nil {
		return chatRequest{}, err
	}
	h := &history{model: r.UpstreamModel}
	if err := h.convert(root.Get("messages")); err != nil {
		return chatRequest{}, err
	}
	req := generateRequest{Contents: h.turns}
	if len(h.system) > 0 {
		req.SystemInstruction = &content{Parts: h.system}
	}
	if err := addTools(&req, root); err != nil {
		return chatRequest{}, err
	}
	gc, err := generation(root, r.MaxOutputTokens)
	if err != nil {
		return chatRequest{}, err
	}
	if gc.ThinkingConfig, err = thinking(root, r); err != nil {
		return chatRequest{}, err
	}
	if !gc.empty() {
		req.GenerationConfig = gc
	}
	body, err := marshal(req)
	if err != nil {
		return chatRequest{}, refuse(codeInvalid, "", "The request cannot be translated: %v.", err)
	}
	return chatRequest{
		body:    body,
		legacy:  present(root.Get("functions")),
		oneCall: root.Get("parallel_tool_calls").Type == gjson.False,
	}, nil
}

// unsupported refuses what Gemini cannot do and the client would miss.
func unsupported(root gjson.Result) error {
	switch {
	case root.Get("logprobs").Type == gjson.True:
		return refuse(codeUnsupported, "logprobs", "logprobs is not supported for Gemini models.")
	case present(root.Get("audio")):
		return refuse(codeUnsupported, "audio", "Audio output is not supported for Gemini models.")
	case present(root.Get("web_search_options")):
		return refuse(codeUnsupported, "web_search_options", "web_search_options is not supported for Gemini models.")
	}
	for _, m := range list(root.Get("modalities")) {
		if m.String() != "text" {
			return refuse(codeUnsupported, "modalities", "Only text output is supported for Gemini models.")
		}
	}
	return nil
}

// addTools declares the functions and translates tool_choice.
func addTools(req *generateRequest, root gjson.Result) error {
	decls, err := declarations(root)
	if err != nil {
		return err
	}
	cfg, only, err := toolChoice(root, decls)
	if err != nil || len(decls) == 0 {
		return err
	}
	if only != nil {
		kept := decls[:0]
		for _, d := range decls {
			if only[d.Name] {
				kept = append(kept, d)
			}
		}
		decls = kept
	}
	req.Tools = []tool{{FunctionDeclarations: decls}}
	req.ToolConfig = cfg
	return nil
}

// maxFunctions is Gemini's limit on function declarations.
const maxFunctions = 128

// declarations reads tools (or the legacy functions).
func declarations(root gjson.Result) ([]functionDeclaration, error) {
	defs, params, err := definitions(root)
	if err != nil {
		return nil, err
	}
	if len(defs) > maxFunctions {
		return nil, refuse(codeInvalid, "tools", "Gemini takes at most %d functions, got %d.", maxFunctions, len(defs))
	}
	out := make([]functionDeclaration, 0, len(defs))
	seen := map[string]bool{}
	for k, d := range defs {
		fd, err := declaration(params[k], d)
		if err != nil {
			return nil, err
		}
		if seen[fd.Name] {
			return nil, refuse(codeInvalid, params[k]+".name", "Duplicate function name %q.", fd.Name)
		}
		seen[fd.Name] = true
		out = append(out, fd)
	}
	return out, nil
}

// definitions returns the function definitions of tools (or functions)
// and the parameter path of each.
func definitions(root gjson.Result) (defs []gjson.Result, params []string, err error) {
	tools, fns := root.Get("tools"), root.Get("functions")
	switch {
	case present(tools) && present(fns):
		return nil, nil, refuse(codeInvalid, "functions", "Use either functions or tools, not both.")
	case present(tools):
		if !tools.IsArray() {
			return nil, nil, refuse(codeInvalid, "tools", "Expected an array of tools.")
		}
		for i, t := range tools.Array() {
			p := fmt.Sprintf("tools[%d]", i)
			if t.Get("type").String() != "function" {
				return nil, nil, refuse(codeUnsupported, p+".type", "Gemini has only function tools, got %s.", t.Get("type").Raw)
			}
			defs, params = append(defs, t.Get("function")), append(params, p+".function")
		}
	case present(fns):
		if !fns.IsArray() {
			return nil, nil, refuse(codeInvalid, "functions", "Expected an array of functions.")
		}
		for i, f := range fns.Array() {
			defs, params = append(defs, f), append(params, fmt.Sprintf("functions[%d]", i))
		}
	}
	return defs, params, nil
}

// declaration is one function, its parameters reduced to Gemini's schema.
func declaration(param string, f gjson.Result) (functionDeclaration, error) {
	if !f.IsObject() {
		return functionDeclaration{}, refuse(codeInvalid, param, "Expected a function definition.")
	}
	name := f.Get("name")
	if name.Type != gjson.String || !functionName.MatchString(name.Str) {
		return functionDeclaration{}, refuse(codeInvalid, param+".name",
			"Gemini function names start with a letter or underscore and hold up to 64 letters, digits, underscores, dots, colons or dashes, got %s.", name.Raw)
	}
	fd := functionDeclaration{Name: name.Str}
	if d := f.Get("description"); present(d) {
		if d.Type != gjson.String {
			return fd, refuse(codeInvalid, param+".description", "Expected a string.")
		}
		fd.Description = d.Str
	}
	params := f.Get("parameters")
	if present(params) && !params.IsObject() {
		return fd, refuse(codeInvalid, param+".parameters", "Expected a JSON Schema object.")
	}
	var err error
	if fd.Parameters, err = reduceSchema(params); err != nil {
		if errors.Is(err, errRecursive) {
			return fd, refuse(codeUnsupported, param+".parameters",
				"Tool %q: its parameters use a %v, which Gemini's function schemas cannot express.", name.Str, err)
		}
		return fd, refuse(codeInvalid, param+".parameters", "Tool %q: %v.", name.Str, err)
	}
	return fd, nil
}

// toolChoice maps tool_choice (or the legacy function_call) to
// functionCallingConfig. only, when not nil, lists the functions to keep
// declared (allowed_tools in auto mode).
func toolChoice(root gjson.Result, decls []functionDeclaration) (*toolConfig, map[string]bool, error) {
	param := "tool_choice"
	tc := root.Get(param)
	if !present(tc) {
		param, tc = "function_call", root.Get("function_call")
	}
	if !present(tc) {
		return nil, nil, nil
	}
	declared := map[string]bool{}
	for _, d := range decls {
		declared[d.Name] = true
	}
	if tc.Type == gjson.String {
		mode, ok := map[string]string{"auto": "AUTO", "none": "NONE", "required": "ANY"}[tc.Str]
		switch {
		case !ok:
			return nil, nil, refuse(codeInvalid, param, "Expected none, auto, required or a function, got %q.", tc.Str)
		case mode == "ANY" && len(decls) == 0:
			return nil, nil, refuse(codeInvalid, param, "tool_choice required needs tools.")
		}
		return callingMode(mode), nil, nil
	}
	name := tc.Get("function.name")
	if param == "function_call" {
		name = tc.Get("name")
	}
	switch typ := tc.Get("type").String(); {
	case !tc.IsObject():
		return nil, nil, refuse(codeInvalid, param, "Expected a string or an object.")
	case param == "function_call" || typ == "function":
		if !declared[name.String()] {
			return nil, nil, refuse(codeInvalid, param, "Function %s is not among the tools.", name.Raw)
		}
		return callingMode("ANY", name.Str), nil, nil
	case typ == "allowed_tools":
		return allowedTools(tc.Get("allowed_tools"), declared)
	}
	return nil, nil, refuse(codeUnsupported, param+".type", "Gemini has only function tools, got %s.", tc.Get("type").Raw)
}

// allowedTools: "required" forces a call to one of them; "auto" declares
// only them.
func allowedTools(at gjson.Result, declared map[string]bool) (*toolConfig, map[string]bool, error) {
	const param = "tool_choice.allowed_tools"
	var names []string
	only := map[string]bool{}
	for i, t := range list(at.Get("tools")) {
		n := t.Get("function.name")
		if t.Get("type").String() != "function" || !declared[n.String()] {
			return nil, nil, refuse(codeInvalid, fmt.Sprintf("%s.tools[%d]", param, i), "Expected a function among the tools.")
		}
		if !only[n.Str] {
			names = append(names, n.Str)
			only[n.Str] = true
		}
	}
	if len(names) == 0 {
		return nil, nil, refuse(codeInvalid, param+".tools", "Expected at least one tool.")
	}
	switch at.Get("mode").String() {
	case "required":
		return callingMode("ANY", names...), nil, nil
	case "auto":
		return callingMode("AUTO"), only, nil
	}
	return nil, nil, refuse(codeInvalid, param+".mode", "Expected auto or required.")
}

func callingMode(mode string, names ...string) *toolConfig {
	return &toolConfig{FunctionCallingConfig: functionCallingConfig{Mode: mode, AllowedFunctionNames: names}}
}
