package responses

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Request is a validated POST /v1/responses body.
type Request struct {
	// Model is the model the client asked for.
	Model string
	// Stream reports whether the client asked for server-sent events.
	Stream bool
	// Store reports whether the response is kept for GET and
	// previous_response_id (true when the client did not say).
	Store bool
	// PreviousResponseID is the response this one continues, as sent (""
	// when absent).
	PreviousResponseID string

	input   []json.RawMessage
	history []json.RawMessage
	// nativeOnly is the first feature used that only OpenAI's own
	// Responses API serves; Chat refuses with it.
	nativeOnly   *FieldError
	instructions *string
	tools        []functionTool
	toolChoice   json.RawMessage // as sent, compacted; nil when absent
	parallel     *bool
	format       json.RawMessage // text.format as sent, compacted
	verbosity    string
	maxOutput    *int64
	maxToolCalls json.RawMessage
	temperature  json.RawMessage
	topP         json.RawMessage
	topLogprobs  json.RawMessage
	effort       string
	summary      string
	metadata     json.RawMessage
	include      []string

	user, safetyID, cacheKey, cacheRetention, serviceTier, truncation string
}

// chatOnly are Chat Completions fields the Responses API does not have:
// refused by name rather than ignored, since the client meant something
// by them.
var chatOnly = []string{"messages", "n", "stop", "max_tokens", "max_completion_tokens",
	"response_format", "presence_penalty", "frequency_penalty", "logit_bias", "seed",
	"logprobs", "functions", "function_call", "reasoning_effort", "modalities", "audio"}

// Parse validates a POST /v1/responses body. Its errors are *FieldError.
func Parse(body []byte) (*Request, error) {
	if !gjson.ValidBytes(body) {
		return nil, &FieldError{Code: "invalid_json", Message: "We could not parse the JSON body of your request."}
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, &FieldError{Code: "invalid_json", Message: "The request body must be a JSON object."}
	}
	for _, k := range chatOnly {
		if root.Get(k).Exists() {
			return nil, unknownParameter(k)
		}
	}
	r := &Request{Store: true}
	steps := []func(*Request, gjson.Result) error{
		(*Request).parseBasics, (*Request).parseState, (*Request).parseEchoes,
		(*Request).parseInput, (*Request).parseTools, (*Request).parseToolChoice,
		(*Request).parseText, (*Request).parseSampling, (*Request).parseReasoning,
		(*Request).parseMetadata,
	}
	for _, step := range steps {
		if err := step(r, root); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// parseBasics reads model, stream, store and instructions.
func (r *Request) parseBasics(root gjson.Result) error {
	var err error
	if r.Model, err = reqString(root.Get("model"), "model"); err != nil {
		return err
	}
	if r.Model == "" {
		return invalidValue("model", "expected a model ID.")
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"stream", &r.Stream}, {"store", &r.Store}} {
		b, err := optBool(root.Get(f.name), f.name)
		if err != nil {
			return err
		}
		if b != nil {
			*f.dst = *b
		}
	}
	if v := root.Get("instructions"); present(v) {
		if v.Type != gjson.String {
			return invalidType("instructions", "a string")
		}
		r.instructions = &v.Str
	}
	if v := root.Get("stream_options"); present(v) && !v.IsObject() {
		return invalidType("stream_options", "an object")
	}
	return nil
}

// parseState reads previous_response_id and refuses what needs state or
// services the gateway does not have: conversations, background runs,
// stored prompts, server-side compaction.
func (r *Request) parseState(root gjson.Result) error {
	var err error
	if r.PreviousResponseID, err = optString(root.Get("previous_response_id"), "previous_response_id"); err != nil {
		return err
	}
	if present(root.Get("conversation")) {
		if r.PreviousResponseID != "" {
			return invalidValue("conversation", "previous_response_id and conversation cannot be used together.")
		}
		return unsupported("conversation", "Conversations are not supported by Switchyard; use previous_response_id or send the history in input.")
	}
	bg, err := optBool(root.Get("background"), "background")
	if err != nil {
		return err
	}
	if bg != nil && *bg {
		return unsupported("background", "Background responses are not supported by Switchyard.")
	}
	if present(root.Get("prompt")) {
		return unsupported("prompt", "Stored prompt templates are not supported by Switchyard; send instructions and input.")
	}
	if present(root.Get("context_management")) {
		return unsupported("context_management", "Server-side context management is not supported by Switchyard.")
	}
	return nil
}

// parseEchoes reads the fields the gateway only echoes (or passes as the
// chat user).
func (r *Request) parseEchoes(root gjson.Result) error {
	var err error
	strs := []struct {
		name string
		dst  *string
		max  int
		enum []string
	}{
		{"user", &r.user, 0, nil},
		{"safety_identifier", &r.safetyID, 64, nil},
		{"prompt_cache_key", &r.cacheKey, 0, nil},
		{"prompt_cache_retention", &r.cacheRetention, 0, []string{"in_memory", "24h"}},
		{"service_tier", &r.serviceTier, 0, []string{"auto", "default", "flex", "scale", "priority", "fast", "ultrafast"}},
		{"truncation", &r.truncation, 0, []string{"auto", "disabled"}},
	}
	for _, f := range strs {
		v := root.Get(f.name)
		if f.enum != nil {
			*f.dst, err = optEnum(v, f.name, f.enum...)
		} else {
			*f.dst, err = optString(v, f.name)
		}
		if err != nil {
			return err
		}
		if f.max > 0 && utf8.RuneCountInString(*f.dst) > f.max {
			return invalidValue(f.name, "longer than %d characters.", f.max)
		}
	}
	if r.maxToolCalls, err = optNumber(root.Get("max_tool_calls"), "max_tool_calls", 0, 1<<31); err != nil {
		return err
	}
	if r.topLogprobs, err = optNumber(root.Get("top_logprobs"), "top_logprobs", 0, 20); err != nil {
		return err
	}
	return r.parseInclude(root.Get("include"))
}

func (r *Request) parseInclude(v gjson.Result) error {
	if !present(v) {
		return nil
	}
	if !v.IsArray() {
		return invalidType("include", "an array of strings")
	}
	for i, x := range v.Array() {
		if x.Type != gjson.String {
			return invalidType(indexed("include", i), "a string")
		}
		r.include = append(r.include, x.Str)
	}
	return nil
}

// parseSampling reads max_output_tokens, temperature, top_p and
// parallel_tool_calls.
func (r *Request) parseSampling(root gjson.Result) error {
	var err error
	if r.maxOutput, err = optInt(root.Get("max_output_tokens"), "max_output_tokens", 16); err != nil {
		return err
	}
	if r.temperature, err = optNumber(root.Get("temperature"), "temperature", 0, 2); err != nil {
		return err
	}
	if r.topP, err = optNumber(root.Get("top_p"), "top_p", 0, 1); err != nil {
		return err
	}
	r.parallel, err = optBool(root.Get("parallel_tool_calls"), "parallel_tool_calls")
	return err
}

// efforts are the values of reasoning.effort (and of the chat
// reasoning_effort it becomes).
var efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// parseReasoning reads reasoning.effort and reasoning.summary (or its
// deprecated alias generate_summary).
func (r *Request) parseReasoning(root gjson.Result) error {
	v := root.Get("reasoning")
	if !present(v) {
		return nil
	}
	if !v.IsObject() {
		return invalidType("reasoning", "an object")
	}
	var err error
	if r.effort, err = optEnum(v.Get("effort"), "reasoning.effort", efforts...); err != nil {
		return err
	}
	summaries := []string{"auto", "concise", "detailed"}
	if r.summary, err = optEnum(v.Get("summary"), "reasoning.summary", summaries...); err != nil || r.summary != "" {
		return err
	}
	r.summary, err = optEnum(v.Get("generate_summary"), "reasoning.generate_summary", summaries...)
	return err
}

// parseMetadata checks metadata: at most 16 pairs, keys up to 64
// characters, string values up to 512.
func (r *Request) parseMetadata(root gjson.Result) error {
	v := root.Get("metadata")
	if !present(v) {
		return nil
	}
	if !v.IsObject() {
		return invalidType("metadata", "an object")
	}
	n := 0
	var err error
	v.ForEach(func(k, x gjson.Result) bool {
		n++
		param := "metadata." + k.Str
		switch {
		case n > 16:
			err = invalidValue("metadata", "at most 16 key-value pairs are allowed.")
		case utf8.RuneCountInString(k.Str) > 64:
			err = invalidValue("metadata", "key '%s' is longer than 64 characters.", k.Str)
		case x.Type != gjson.String:
			err = invalidType(param, "a string")
		case utf8.RuneCountInString(x.Str) > 512:
			err = invalidValue(param, "longer than 512 characters.")
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	r.metadata = compact(v)
	return nil
}
