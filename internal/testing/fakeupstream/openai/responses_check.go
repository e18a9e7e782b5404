package fakeopenai

import (
	"math"

	"github.com/tidwall/gjson"
)

// respFields are the top-level fields of a Responses request (inbound-apis
// 1.2); anything else, Chat's fields included, is an unknown parameter.
var respFields = fields{
	"model":                  str,
	"input":                  stringOr(str, arrayOf(object, 0, math.MaxInt)),
	"instructions":           str,
	"tools":                  arrayOf(typed("an object", respToolShapes), 0, 128),
	"tool_choice":            stringOr(enum("none", "auto", "required"), typed("an object", respToolChoices)),
	"parallel_tool_calls":    boolean,
	"text":                   objectOf(fields{"format": typed("an object", respFormats), "verbosity": enum("low", "medium", "high")}),
	"max_output_tokens":      integer(16, math.MaxInt32),
	"max_tool_calls":         integer(1, math.MaxInt32),
	"temperature":            decimal(0, 2),
	"top_p":                  decimal(0, 1),
	"top_logprobs":           integer(0, 20),
	"reasoning":              objectOf(fields{"effort": enum("none", "minimal", "low", "medium", "high", "xhigh"), "summary": enum("auto", "concise", "detailed"), "generate_summary": str}),
	"store":                  boolean,
	"previous_response_id":   str,
	"conversation":           stringOr(str, object),
	"include":                arrayOf(str, 0, 16),
	"stream":                 boolean,
	"stream_options":         objectOf(fields{"include_obfuscation": boolean}),
	"background":             boolean,
	"metadata":               metadata,
	"user":                   str,
	"safety_identifier":      strMax(64),
	"prompt_cache_key":       str,
	"prompt_cache_retention": enum("in_memory", "24h"),
	"service_tier":           enum("auto", "default", "flex", "scale", "priority"),
	"truncation":             enum("auto", "disabled"),
}

var respFunctionDef = fields{"type": str, "name": toolName, "description": nullable(str), "parameters": nullable(object), "strict": nullable(boolean)}

// respToolShapes are the tools the fake accepts: flat functions, and the
// hosted tools it knows (and never calls).
var respToolShapes = map[string]shape{
	"function":           {fs: respFunctionDef, required: []string{"name"}},
	"web_search":         {fs: fields{"type": str}},
	"web_search_preview": {fs: fields{"type": str}},
	"file_search":        {fs: fields{"type": str, "vector_store_ids": arrayOf(str, 1, 2)}, required: []string{"vector_store_ids"}},
}

var respToolChoices = map[string]shape{
	"function":      {fs: fields{"type": str, "name": str}, required: []string{"name"}},
	"allowed_tools": {fs: fields{"type": str, "mode": enum("auto", "required"), "tools": arrayOf(object, 1, 128)}, required: []string{"mode", "tools"}},
}

var respFormats = map[string]shape{
	"text":        {fs: fields{"type": str}},
	"json_object": {fs: fields{"type": str}},
	"json_schema": {fs: fields{"type": str, "name": toolName, "description": str, "schema": object, "strict": nullable(boolean)}, required: []string{"name", "schema"}},
}

// checkResponsesFields checks the top level of a Responses request:
// unknown fields, model and input, each field, previous_response_id.
func checkResponsesFields(root gjson.Result) error {
	var err error
	root.ForEach(func(k, _ gjson.Result) bool {
		if _, ok := respFields[k.Str]; !ok {
			err = errUnknown(k.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := checkObject(root, "", respFields, "model", "input"); err != nil {
		return err
	}
	if id := root.Get("previous_response_id"); present(id) {
		// The fake keeps no responses (nor does the gateway send the field).
		return badRequest("previous_response_id", "previous_response_not_found", "Previous response with id '%s' not found.", id.Str)
	}
	return nil
}

// checkResponsesModel refuses sampling parameters on reasoning models and
// reasoning settings on the others, as OpenAI does.
func checkResponsesModel(root gjson.Result, m model) error {
	if isReasoning(m) {
		for _, p := range [...]string{"temperature", "top_p"} {
			if present(root.Get(p)) {
				return badRequest(p, "", "Unsupported parameter: '%s' is not supported with this model.", p)
			}
		}
		return nil
	}
	if present(root.Get("reasoning.effort")) {
		return badRequest("reasoning.effort", "", "Unsupported parameter: 'reasoning.effort' is not supported with this model.")
	}
	return nil
}
