package fakegemini

import (
	"bytes"
	"encoding/base64"
	"math"
	"slices"

	"github.com/tidwall/gjson"
)

// checkGeneration checks generationConfig and keeps what the answer uses.
func checkGeneration(g gjson.Result, gen *generation) error {
	if !g.Exists() {
		return nil
	}
	const at = "generation_config"
	if err := fields(g, at, "temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "stopSequences",
		"presencePenalty", "frequencyPenalty", "seed", "responseMimeType", "responseSchema", "responseJsonSchema",
		"responseLogprobs", "logprobs", "thinkingConfig", "responseModalities", "mediaResolution"); err != nil {
		return err
	}
	for _, f := range []struct {
		name     string
		min, max float64
	}{{"temperature", 0, 2}, {"topP", 0, 1}, {"presencePenalty", -2, 2}, {"frequencyPenalty", -2, 2}} {
		if err := number(g.Get(f.name), at+"."+f.name, f.min, f.max); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name     string
		min, max int64
		dst      *int
	}{
		{"topK", 1, math.MaxInt32, nil}, {"candidateCount", 1, 8, &gen.candidates},
		{"maxOutputTokens", 1, math.MaxInt32, &gen.maxTokens}, {"seed", math.MinInt32, math.MaxInt32, nil},
	} {
		n, err := integer(g.Get(f.name), at+"."+f.name, f.min, f.max)
		if err != nil {
			return err
		}
		if f.dst != nil {
			*f.dst = int(n)
		}
	}
	if err := checkStops(g.Get("stopSequences"), gen); err != nil {
		return err
	}
	return checkResponseFormat(g, gen)
}

func checkStops(v gjson.Result, gen *generation) error {
	if !v.Exists() {
		return nil
	}
	arr := v.Array()
	if !v.IsArray() || len(arr) > 5 || slices.ContainsFunc(arr, func(s gjson.Result) bool { return s.Type != gjson.String }) {
		return badValue("generation_config.stop_sequences", "expected at most 5 strings")
	}
	for _, s := range arr {
		gen.stops = append(gen.stops, s.Str)
	}
	return nil
}

func checkResponseFormat(g gjson.Result, gen *generation) error {
	const at = "generation_config"
	mime := g.Get("responseMimeType")
	if mime.Exists() && !slices.Contains([]string{"text/plain", "application/json", "text/x.enum"}, mime.String()) {
		return badValue(at+".response_mime_type", "unsupported MIME type "+mime.Raw)
	}
	rs, rj := g.Get("responseSchema"), g.Get("responseJsonSchema")
	switch {
	case rs.Exists() && rj.Exists():
		return badValue(at, "response_schema and response_json_schema cannot both be set")
	case (rs.Exists() || rj.Exists()) && mime.Str != "application/json" && mime.Str != "text/x.enum":
		return badValue(at+".response_mime_type", "a response schema needs response_mime_type application/json")
	case rs.Exists():
		if err := checkSchema(at+".response_schema", rs, 0); err != nil {
			return err
		}
		gen.schema = rs
	case rj.Exists():
		if err := checkJSONSchema(at+".response_json_schema", rj, 0); err != nil {
			return err
		}
		gen.schema = rj
	}
	gen.json = mime.Str == "application/json"
	return nil
}

// checkTurns applies Gemini's function-calling turn rules: a function call
// turn comes right after a user turn (text or function responses); the
// next turn answers every call with function responses only; Gemini 3
// wants the first call of each call turn to carry its thought signature.
func checkTurns(model string, contents []gjson.Result) error {
	for i, c := range contents {
		calls, resps := functionParts(c, "functionCall"), functionParts(c, "functionResponse")
		if len(calls) > 0 {
			if i == 0 || contents[i-1].Get("role").Str != "user" {
				return errTurnOrder
			}
			if needsSignature(model) {
				if err := checkSignature(i, calls[0]); err != nil {
					return err
				}
			}
			if i+1 < len(contents) && len(functionParts(contents[i+1], "functionResponse")) == 0 {
				return invalid("Please ensure that function call turn is followed by a function response turn.")
			}
		}
		if len(resps) == 0 {
			continue
		}
		if len(resps) != len(c.Get("parts").Array()) {
			return invalid("Please ensure that function response turn contains only function responses.")
		}
		var prev []gjson.Result
		if i > 0 {
			prev = functionParts(contents[i-1], "functionCall")
		}
		if len(prev) == 0 {
			return invalid("Please ensure that function response turn comes immediately after a function call turn.")
		}
		if !sameNames(prev, resps) {
			return invalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
		}
	}
	return nil
}

// functionParts returns the parts of a content that set field.
func functionParts(c gjson.Result, field string) []gjson.Result {
	var out []gjson.Result
	for _, p := range c.Get("parts").Array() {
		if p.Get(field).Exists() {
			out = append(out, p)
		}
	}
	return out
}

// sameNames reports whether the responses answer the calls one for one.
func sameNames(calls, resps []gjson.Result) bool {
	if len(calls) != len(resps) {
		return false
	}
	names := func(ps []gjson.Result, field string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Get(field + ".name").Str
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(names(calls, "functionCall"), names(resps, "functionResponse"))
}

// skipSignature is the value Google documents to skip the check.
const skipSignature = "skip_thought_signature_validator"

// sigPrefix starts every signature the fake issues.
const sigPrefix = "fakesig/"

// signature is the thought signature the fake attaches to a call. Its
// bytes are padded to a multiple of three and end in bytes that encode as
// "+/+/", so a client that mangles standard base64 gets caught.
func signature(model, name string) string {
	raw := []byte(sigPrefix + model + "/" + name + "/")
	for len(raw)%3 != 0 {
		raw = append(raw, '.')
	}
	raw = append(raw, 0xfb, 0xff, 0xbf)
	return base64.StdEncoding.EncodeToString(raw)
}

// checkSignature wants the first call of turn i to carry a signature the
// fake issued (or the documented skip value).
func checkSignature(i int, first gjson.Result) error {
	sig := first.Get("thoughtSignature")
	if !sig.Exists() {
		return errMissingSignature(first.Get("functionCall.name").Str, i+1)
	}
	raw, ok := decodeBase64(sig.Str)
	if sig.Str != skipSignature && (!ok || !bytes.HasPrefix(raw, []byte(sigPrefix))) {
		e := invalid("Thought signature is not valid: it was not issued for this conversation.")
		e.cause = ErrUnknownSignature
		return e
	}
	return nil
}
