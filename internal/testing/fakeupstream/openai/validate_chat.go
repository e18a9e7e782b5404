package fakeopenai

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// chatFields are the documented fields of a chat completion request
// (wire-formats 1.2); anything else is "Unrecognized request argument".
var chatFields = fields{
	"model":                 str,
	"messages":              arrayOf(message, 1, math.MaxInt),
	"temperature":           decimal(0, 2),
	"top_p":                 decimal(0, 1),
	"n":                     integer(1, 128),
	"max_tokens":            integer(1, math.MaxInt32),
	"max_completion_tokens": integer(1, math.MaxInt32),
	"stream":                boolean,
	"stream_options":        objectOf(fields{"include_usage": boolean, "include_obfuscation": boolean}),
	"stop":                  stop,
	"presence_penalty":      decimal(-2, 2),
	"frequency_penalty":     decimal(-2, 2),
	"logit_bias":            logitBias,
	"logprobs":              boolean,
	"top_logprobs":          integer(0, 20),
	"user":                  str,
	"seed":                  integer(math.MinInt64, math.MaxInt64),
	"response_format":       typed("an object", responseFormats),
	"tools":                 arrayOf(typed("an object", toolShapes), 1, 128),
	"tool_choice":           stringOr(enum("none", "auto", "required"), typed("an object", toolChoices)),
	"parallel_tool_calls":   boolean,
	"functions":             arrayOf(objectOf(functionDef, "name"), 1, 128),
	"function_call":         stringOr(enum("none", "auto"), objectOf(fields{"name": str}, "name")),
	"metadata":              metadata,
	"store":                 boolean,
	"service_tier":          enum("auto", "default", "flex", "scale", "priority"),
	"modalities":            arrayOf(enum("text", "audio"), 1, 2),
	"audio":                 objectOf(fields{"voice": str, "format": enum("wav", "aac", "mp3", "flac", "opus", "pcm16")}, "voice", "format"),
	"prediction":            objectOf(fields{"type": enum("content"), "content": content("text")}, "type", "content"),
	"reasoning_effort":      enum("none", "minimal", "low", "medium", "high", "xhigh"),
	"verbosity":             enum("low", "medium", "high"),
	"web_search_options":    object,
	"prompt_cache_key":      str,
	"safety_identifier":     strMax(64),
}

// shape is the fields of one variant of a union discriminated by "type".
type shape struct {
	fs       fields
	required []string
}

var functionDef = fields{"name": toolName, "description": str, "parameters": object, "strict": boolean}

var responseFormats = map[string]shape{
	"text":        {fs: fields{"type": str}},
	"json_object": {fs: fields{"type": str}},
	"json_schema": {fs: fields{"type": str, "json_schema": objectOf(fields{"name": toolName, "description": str, "schema": object, "strict": boolean}, "name")}, required: []string{"json_schema"}},
}

var toolShapes = map[string]shape{
	"function": {fs: fields{"type": str, "function": objectOf(functionDef, "name")}, required: []string{"function"}},
	"custom":   {fs: fields{"type": str, "custom": objectOf(fields{"name": toolName, "description": str, "format": object}, "name")}, required: []string{"custom"}},
}

var toolChoices = map[string]shape{
	"function":      {fs: fields{"type": str, "function": objectOf(fields{"name": str}, "name")}, required: []string{"function"}},
	"custom":        {fs: fields{"type": str, "custom": objectOf(fields{"name": str}, "name")}, required: []string{"custom"}},
	"allowed_tools": {fs: fields{"type": str, "allowed_tools": objectOf(fields{"mode": enum("auto", "required"), "tools": arrayOf(typed("an object", toolChoices2), 1, 128)}, "mode", "tools")}, required: []string{"allowed_tools"}},
}

// toolChoices2 are the entries of allowed_tools.tools (no nesting).
var toolChoices2 = map[string]shape{
	"function": {fs: fields{"type": str, "function": objectOf(fields{"name": str}, "name")}, required: []string{"function"}},
	"custom":   {fs: fields{"type": str, "custom": objectOf(fields{"name": str}, "name")}, required: []string{"custom"}},
}

var roles = []string{"system", "assistant", "user", "function", "tool", "developer"}

var messageFields = map[string]fields{
	"system":    {"role": str, "content": content("text"), "name": str},
	"developer": {"role": str, "content": content("text"), "name": str},
	"user":      {"role": str, "content": content("text", "image_url", "input_audio", "file"), "name": str},
	"assistant": {
		"role": str, "content": content("text", "refusal"), "name": str, "refusal": str,
		"tool_calls":    arrayOf(typed("an object", toolCallShapes), 1, math.MaxInt),
		"function_call": objectOf(fields{"name": str, "arguments": str}, "name", "arguments"),
		"audio":         objectOf(fields{"id": str}, "id"),
	},
	"tool":     {"role": str, "content": content("text"), "tool_call_id": str},
	"function": {"role": str, "content": nullable(str), "name": str},
}

var messageRequired = map[string][]string{
	"system": {"content"}, "developer": {"content"}, "user": {"content"},
	"tool": {"content", "tool_call_id"}, "function": {"content", "name"},
}

var toolCallShapes = map[string]shape{
	"function": {fs: fields{"id": str, "type": str, "function": objectOf(fields{"name": str, "arguments": str}, "name", "arguments")}, required: []string{"id", "function"}},
	"custom":   {fs: fields{"id": str, "type": str, "custom": objectOf(fields{"name": str, "input": str}, "name", "input")}, required: []string{"id", "custom"}},
}

var partShapes = map[string]shape{
	"text":        {fs: fields{"type": str, "text": str}, required: []string{"text"}},
	"refusal":     {fs: fields{"type": str, "refusal": str}, required: []string{"refusal"}},
	"image_url":   {fs: fields{"type": str, "image_url": objectOf(fields{"url": str, "detail": enum("auto", "low", "high")}, "url")}, required: []string{"image_url"}},
	"input_audio": {fs: fields{"type": str, "input_audio": objectOf(fields{"data": str, "format": enum("wav", "mp3")}, "data", "format")}, required: []string{"input_audio"}},
	"file":        {fs: fields{"type": str, "file": objectOf(fields{"file_id": str, "filename": str, "file_data": str})}, required: []string{"file"}},
}

// typed checks an object whose "type" picks one of shapes.
func typed(want string, shapes map[string]shape) check {
	names := slices.Sorted(maps.Keys(shapes))
	return func(v gjson.Result, p string) error {
		if !v.IsObject() {
			return errType(p, want, v)
		}
		t := v.Get("type")
		if !t.Exists() {
			return errMissing(join(p, "type"))
		}
		if err := enum(names...)(t, join(p, "type")); err != nil {
			return err
		}
		sh := shapes[t.Str]
		return checkObject(v, p, sh.fs, sh.required...)
	}
}

// stringOr checks strings with s and everything else with o.
func stringOr(s, o check) check {
	return func(v gjson.Result, p string) error {
		if v.Type == gjson.String {
			return s(v, p)
		}
		return o(v, p)
	}
}

func nullable(c check) check {
	return func(v gjson.Result, p string) error {
		if v.Type == gjson.Null {
			return nil
		}
		return c(v, p)
	}
}

// content is a message's content: a string or a non-empty array of parts
// of the given types.
func content(types ...string) check {
	shapes := make(map[string]shape, len(types))
	for _, t := range types {
		shapes[t] = partShapes[t]
	}
	parts := arrayOf(typed("an object", shapes), 1, math.MaxInt)
	return func(v gjson.Result, p string) error {
		if v.Type == gjson.String {
			return nil
		}
		if !v.IsArray() {
			return errType(p, "one of a string or array of objects", v)
		}
		return parts(v, p)
	}
}

func message(v gjson.Result, p string) error {
	if err := object(v, p); err != nil {
		return err
	}
	role := v.Get("role")
	if !role.Exists() {
		return errMissing(p + ".role")
	}
	if err := enum(roles...)(role, p+".role"); err != nil {
		return err
	}
	if err := checkObject(v, p, messageFields[role.Str], messageRequired[role.Str]...); err != nil {
		return err
	}
	if role.Str == "assistant" && !present(v.Get("content")) && !present(v.Get("tool_calls")) && !present(v.Get("function_call")) {
		return errMissing(p + ".content")
	}
	return nil
}

// checkChatRules applies the rules that tie fields together.
func checkChatRules(root gjson.Result, opt Options) error {
	tools, functions := present(root.Get("tools")), present(root.Get("functions"))
	for _, err := range []error{
		onlyWhen(root, "stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.", root.Get("stream").Type == gjson.True),
		onlyWhen(root, "top_logprobs", "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is specified.", root.Get("logprobs").Type == gjson.True),
		onlyWhen(root, "tool_choice", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", tools),
		onlyWhen(root, "parallel_tool_calls", "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", tools),
		onlyWhen(root, "function_call", "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' are specified.", functions),
		onlyWhen(root, "functions", "Invalid parameters: 'functions' and 'tools' cannot be specified together. Use 'tools' only.", !tools),
		checkToolsOnly(root, opt.ToolsOnly),
		checkChoiceNames(root),
		checkJSONWord(root),
		checkToolTurns(root.Get("messages").Array()),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkToolsOnly rejects the deprecated function-calling fields on a host
// that implements only tools.
func checkToolsOnly(root gjson.Result, toolsOnly bool) error {
	if !toolsOnly {
		return nil
	}
	for _, name := range []string{"functions", "function_call"} {
		if present(root.Get(name)) {
			return errUnsupportedParam(name, " Use 'tools' instead.")
		}
	}
	for i, m := range root.Get("messages").Array() {
		if m.Get("role").Str == "function" {
			return badRequest(index("messages", i)+".role", "invalid_value", "Invalid value: 'function'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.")
		}
	}
	return nil
}

// checkChoiceNames checks that tool_choice and function_call name a tool
// or function that the request defines.
func checkChoiceNames(root gjson.Result) error {
	defined := func(list, kind, name string) bool {
		for _, t := range root.Get(list).Array() {
			def := t
			if list == "tools" {
				def = t.Get(kind)
			}
			if def.Get("name").Str == name {
				return true
			}
		}
		return false
	}
	choice := root.Get("tool_choice")
	var named []gjson.Result
	switch choice.Get("type").Str {
	case "function", "custom":
		named = []gjson.Result{choice}
	case "allowed_tools":
		named = choice.Get("allowed_tools.tools").Array()
	}
	for _, c := range named {
		kind := c.Get("type").Str
		if name := c.Get(kind + ".name").Str; !defined("tools", kind, name) {
			return badRequest("tool_choice", "invalid_value", "Invalid value for 'tool_choice': tool '%s' is not defined in 'tools'.", name)
		}
	}
	if fc := root.Get("function_call"); fc.IsObject() && !defined("functions", "", fc.Get("name").Str) {
		return badRequest("function_call", "invalid_value", "Invalid value for 'function_call': function '%s' is not defined in 'functions'.", fc.Get("name").Str)
	}
	return nil
}

// checkJSONWord is OpenAI's rule for JSON mode: some message must say "json".
func checkJSONWord(root gjson.Result) error {
	if root.Get("response_format.type").Str != "json_object" {
		return nil
	}
	for _, m := range root.Get("messages").Array() {
		if strings.Contains(strings.ToLower(contentText(m.Get("content"))), "json") {
			return nil
		}
	}
	return badRequest("messages", "", "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.")
}

// checkToolTurns checks that every tool message answers a call of the
// assistant message before it, and that every call gets an answer.
func checkToolTurns(msgs []gjson.Result) error {
	var calls, pending []string
	for i, m := range msgs {
		if m.Get("role").Str == "tool" {
			id := m.Get("tool_call_id").Str
			switch {
			case calls == nil:
				return badRequest(index("messages", i)+".role", "", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			case !slices.Contains(calls, id):
				return badRequest(index("messages", i)+".tool_call_id", "", "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", id)
			}
			pending = slices.DeleteFunc(pending, func(p string) bool { return p == id })
			continue
		}
		if len(pending) > 0 {
			return errUnanswered(pending)
		}
		calls = nil
		for _, tc := range m.Get("tool_calls").Array() {
			calls = append(calls, tc.Get("id").Str)
		}
		pending = slices.Clone(calls)
	}
	if len(pending) > 0 {
		return errUnanswered(pending)
	}
	return nil
}

func errUnanswered(ids []string) error {
	return badRequest("messages", "", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
}

// checkChatModel applies the rules of the chosen model.
func checkChatModel(root gjson.Result, m model, promptTokens int) error {
	if m.reasoning {
		if present(root.Get("max_tokens")) {
			return errUnsupportedParam("max_tokens", " Use 'max_completion_tokens' instead.")
		}
		for _, name := range []string{"temperature", "top_p"} {
			if v := root.Get(name); present(v) && v.Num != 1 {
				return badRequest(name, "unsupported_value", "Unsupported value: '%s' does not support %s with this model. Only the default (1) value is supported.", name, v.Raw)
			}
		}
	} else if m.owner == "system" && present(root.Get("reasoning_effort")) {
		return errUnsupportedParam("reasoning_effort", "")
	}
	for _, name := range []string{"max_completion_tokens", "max_tokens"} {
		if n := int(root.Get(name).Int()); m.maxOutput > 0 && n > m.maxOutput {
			return badRequest(name, "invalid_value", "%s is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.", name, n, m.maxOutput, n)
		}
	}
	if promptTokens > m.context {
		return errContextLength(m.context, promptTokens)
	}
	return nil
}
