package gemini

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/tidwall/gjson"
)

// Gemini's limits on generationConfig.
const (
	maxCandidates = 8
	maxStops      = 5
)

// generation maps the sampling parameters to generationConfig.
// maxOutput is the catalogue's output limit (0 when unknown).
func generation(root gjson.Result, maxOutput int) (*generationConfig, error) {
	g := &generationConfig{}
	if err := sampling(g, root); err != nil {
		return nil, err
	}
	if n, ok, err := integer(root, "n", 1, maxCandidates); err != nil {
		return nil, err
	} else if ok && n > 1 {
		g.CandidateCount = json.RawMessage(strconv.FormatInt(n, 10))
	}
	var err error
	if g.MaxOutputTokens, err = maxTokens(root, maxOutput); err != nil {
		return nil, err
	}
	if g.StopSequences, err = stops(root); err != nil {
		return nil, err
	}
	if seed, ok, err := integer(root, "seed", math.MinInt64, math.MaxInt64); err != nil {
		return nil, err
	} else if ok {
		// Gemini's seed is an int32; the low 32 bits keep "same seed,
		// same answer".
		g.Seed = json.RawMessage(strconv.FormatInt(int64(int32(seed)), 10))
	}
	return g, responseFormat(g, root.Get("response_format"))
}

// sampling copies the sampling numbers, checking their ranges.
func sampling(g *generationConfig, root gjson.Result) error {
	var err error
	for _, f := range []struct {
		name     string
		dst      *json.RawMessage
		min, max float64
	}{
		{"temperature", &g.Temperature, 0, 2},
		{"top_p", &g.TopP, 0, 1},
		{"presence_penalty", &g.PresencePenalty, -2, 2},
		{"frequency_penalty", &g.FrequencyPenalty, -2, 2},
	} {
		if *f.dst, err = number(root, f.name, f.min, f.max); err != nil {
			return err
		}
	}
	// A zero penalty is the default; some Gemini models refuse penalties
	// altogether, and OpenAI clients often send zeros.
	for _, p := range []*json.RawMessage{&g.PresencePenalty, &g.FrequencyPenalty} {
		if len(*p) > 0 && gjson.ParseBytes(*p).Num == 0 {
			*p = nil
		}
	}
	return nil
}

// number returns an optional number within [min, max] as written.
func number(root gjson.Result, name string, min, max float64) (json.RawMessage, error) {
	v := root.Get(name)
	switch {
	case !present(v):
		return nil, nil
	case v.Type != gjson.Number || v.Num < min || v.Num > max:
		return nil, refuse(codeInvalid, name, "Expected a number between %g and %g.", min, max)
	}
	return json.RawMessage(v.Raw), nil
}

// integer returns an optional integer within [min, max].
func integer(root gjson.Result, name string, min, max int64) (int64, bool, error) {
	v := root.Get(name)
	if !present(v) {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if v.Type != gjson.Number || err != nil || n < min || n > max {
		return 0, false, refuse(codeInvalid, name, "Expected an integer between %d and %d.", min, max)
	}
	return n, true, nil
}

// maxTokens is max_completion_tokens, else max_tokens, at most the
// model's output limit.
func maxTokens(root gjson.Result, maxOutput int) (json.RawMessage, error) {
	name := "max_completion_tokens"
	if !present(root.Get(name)) {
		name = "max_tokens"
	}
	n, ok, err := integer(root, name, 1, math.MaxInt64)
	if err != nil || !ok {
		return nil, err
	}
	n = min(n, math.MaxInt32)
	if maxOutput > 0 {
		n = min(n, int64(maxOutput))
	}
	return json.RawMessage(strconv.FormatInt(n, 10)), nil
}

// stops reads stop: a string or an array of strings; empty ones are left
// out.
func stops(root gjson.Result) ([]string, error) {
	v := root.Get("stop")
	if !present(v) {
		return nil, nil
	}
	if v.Type == gjson.String {
		v = gjson.Parse("[" + v.Raw + "]")
	}
	if !v.IsArray() {
		return nil, refuse(codeInvalid, "stop", "Expected a string or an array of strings.")
	}
	var out []string
	for _, s := range v.Array() {
		if s.Type != gjson.String {
			return nil, refuse(codeInvalid, "stop", "Expected a string or an array of strings.")
		}
		if s.Str != "" {
			out = append(out, s.Str)
		}
	}
	if len(out) > maxStops {
		return nil, refuse(codeInvalid, "stop", "Gemini takes at most %d stop sequences, got %d.", maxStops, len(out))
	}
	return out, nil
}

// responseFormat: json_object asks for JSON; json_schema also passes the
// schema as responseJsonSchema, keeping the keywords Gemini takes.
func responseFormat(g *generationConfig, rf gjson.Result) error {
	if !present(rf) {
		return nil
	}
	if !rf.IsObject() {
		return refuse(codeInvalid, "response_format", "Expected an object.")
	}
	switch t := rf.Get("type").String(); t {
	case "text":
	case "json_object":
		g.ResponseMimeType = "application/json"
	case "json_schema":
		g.ResponseMimeType = "application/json"
		if s := rf.Get("json_schema.schema"); present(s) {
			var err error
			if g.ResponseJSONSchema, err = responseJSONSchema(s); err != nil {
				return refuse(codeInvalid, "response_format.json_schema.schema", "The response schema cannot be sent to Gemini: %v.", err)
			}
		}
	default:
		return refuse(codeInvalid, "response_format.type", "Expected text, json_object or json_schema, got %q.", t)
	}
	return nil
}
