// Package messages serves Anthropic's Messages API over chat completions:
// it checks a Messages request and translates it into a chat completions
// body, and turns chat completions answers and streams back into Messages
// answers and events, for upstreams that do not speak Messages natively.
package messages

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/tidwall/gjson"
)

// Request is a checked Messages request and its chat translation.
type Request struct {
	// Model is the model the client asked for.
	Model string
	// MaxTokens is the client's max_tokens (0 for count_tokens).
	MaxTokens int
	// Stream reports whether the client asked for a stream.
	Stream bool
	chat   chatRequest
}

// Parse checks a Messages request body (POST /v1/messages) and translates
// it. Unknown fields are ignored; fields whose meaning a chat upstream
// cannot honour are refused with an *Error naming them.
func Parse(body []byte) (*Request, error) { return parse(body, true) }

// ParseCount checks a count_tokens body (POST /v1/messages/count_tokens):
// a Messages request without max_tokens and stream.
func ParseCount(body []byte) (*Request, error) { return parse(body, false) }

func parse(body []byte, create bool) (*Request, error) {
	if !gjson.ValidBytes(body) {
		return nil, errorf("", "The request body is not valid JSON.")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, errorf("", "The request body must be a JSON object.")
	}
	r := &Request{}
	steps := []func(*Request, gjson.Result) error{parseModel, parseSystem, parseMessages,
		parseTools, parseToolChoice, parseOutput}
	if create {
		steps = append(steps, parseMaxTokens, parseSampling)
	}
	steps = append(steps, parseThinking) // after max_tokens, which bounds the budget
	for _, step := range steps {
		if err := step(r, root); err != nil {
			return nil, err
		}
	}
	r.chat.Model = r.Model
	return r, nil
}

// Chat returns the chat completions body of the request, with
// stream_options.include_usage set when it streams.
func (r *Request) Chat() ([]byte, error) {
	b, err := json.Marshal(&r.chat)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}

func parseModel(r *Request, root gjson.Result) error {
	s, err := str(root.Get("model"), "model", true)
	if err == nil && s == "" {
		err = errorf("model", "String should have at least 1 character")
	}
	r.Model = s
	return err
}

func parseMaxTokens(r *Request, root gjson.Result) error {
	n, ok, err := integer(root.Get("max_tokens"), "max_tokens", 0)
	switch {
	case err != nil:
		return err
	case !ok:
		return errorf("max_tokens", "Field required")
	}
	r.MaxTokens = n
	// max_tokens 0 asks Anthropic for no output (a cache pre-warm); chat
	// upstreams refuse 0, so the closest they can do is one token.
	r.chat.MaxTokens = max(n, 1)
	return nil
}

// parseSampling reads the sampling and bookkeeping fields.
func parseSampling(r *Request, root gjson.Result) error {
	var err error
	if r.chat.Temperature, err = unitNumber(root.Get("temperature"), "temperature"); err != nil {
		return err
	}
	if r.chat.TopP, err = unitNumber(root.Get("top_p"), "top_p"); err != nil {
		return err
	}
	// top_k has no chat equivalent; it is checked and dropped.
	if _, _, err := integer(root.Get("top_k"), "top_k", 0); err != nil {
		return err
	}
	if r.chat.Stop, err = stringList(root.Get("stop_sequences"), "stop_sequences"); err != nil {
		return err
	}
	if v := root.Get("stream"); v.Exists() && v.Type != gjson.Null {
		if !isBool(v) {
			return errorf("stream", "Input should be a valid boolean")
		}
		r.Stream = v.Bool()
	}
	if r.Stream {
		r.chat.Stream, r.chat.StreamOptions = true, &streamOptions{IncludeUsage: true}
	}
	if r.chat.User, err = str(root.Get("metadata.user_id"), "metadata.user_id", false); err != nil {
		return err
	}
	if m := root.Get("metadata"); m.Exists() && m.Type != gjson.Null && !m.IsObject() {
		return errorf("metadata", "Input should be a valid dictionary")
	}
	// service_tier chooses between Anthropic's capacity pools; chat
	// upstreams have none to choose, so it is checked and dropped.
	return oneOf(root.Get("service_tier"), "service_tier", "auto", "standard_only")
}

// str reads an optional (or required) string; null counts as absent.
func str(v gjson.Result, param string, required bool) (string, error) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		if required {
			return "", errorf(param, "Field required")
		}
		return "", nil
	case v.Type != gjson.String:
		return "", errorf(param, "Input should be a valid string")
	}
	return v.Str, nil
}

// integer reads an optional integer ≥ least; ok reports whether it was
// given.
func integer(v gjson.Result, param string, least int) (n int, ok bool, err error) {
	if !v.Exists() || v.Type == gjson.Null {
		return 0, false, nil
	}
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		return 0, false, errorf(param, "Input should be a valid integer")
	}
	if v.Num < float64(least) {
		return 0, false, errorf(param, "Input should be greater than or equal to %d", least)
	}
	return int(v.Num), true, nil
}

// unitNumber reads an optional number in [0, 1], as its JSON text.
func unitNumber(v gjson.Result, param string) (json.RawMessage, error) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if v.Type != gjson.Number {
		return nil, errorf(param, "Input should be a valid number")
	}
	if v.Num < 0 || v.Num > 1 {
		return nil, errorf(param, "Input should be between 0 and 1")
	}
	return json.RawMessage(v.Raw), nil
}

// stringList reads an optional array of strings.
func stringList(v gjson.Result, param string) ([]string, error) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		return nil, errorf(param, "Input should be a valid list")
	}
	var out []string
	for i, s := range v.Array() {
		if s.Type != gjson.String {
			return nil, errorf(path(param, i), "Input should be a valid string")
		}
		out = append(out, s.Str)
	}
	return out, nil
}

// oneOf checks an optional string against its allowed values.
func oneOf(v gjson.Result, param string, allowed ...string) error {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	s, err := str(v, param, false)
	if err != nil {
		return err
	}
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return errorf(param, "Input should be %s", quoteList(allowed))
}

func quoteList(vs []string) string {
	out := ""
	for i, v := range vs {
		switch {
		case i == 0:
		case i == len(vs)-1:
			out += " or "
		default:
			out += ", "
		}
		out += "'" + v + "'"
	}
	return out
}

func isBool(v gjson.Result) bool { return v.Type == gjson.True || v.Type == gjson.False }
