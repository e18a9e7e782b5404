package api

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
)

// maxInputs bounds the prompts of a legacy completion and the inputs of
// an embeddings request, as OpenAI does.
const maxInputs = 2048

// completionRequest is what the handler needs to know about a valid legacy
// completion body.
type completionRequest struct {
	Model        string
	Stream       bool
	IncludeUsage bool
	// Prompts holds the text prompts; nil when the prompt is token IDs.
	Prompts []string
	// Tokens reports a prompt of token IDs (int[] or int[][]).
	Tokens bool
	Sizes  gateway.Sizes
}

// checkCompletion validates a legacy completion body.
func checkCompletion(body []byte) (completionRequest, *Error) {
	var f fields
	f.read(body)
	model, e := checkModel(&f)
	if e != nil {
		return completionRequest{}, e
	}
	cr := completionRequest{Model: model}
	if cr.Prompts, cr.Tokens, e = checkInputs(&f, "prompt", true); e != nil {
		return completionRequest{}, e
	}
	n := len(cr.Prompts)
	if cr.Tokens {
		n = tokenInputs(f.get("prompt"))
	}
	// OpenAI's bound; each prompt is one upstream call on a chat model.
	if n > maxInputs {
		return completionRequest{}, invalidValue("prompt", fmt.Sprintf("expected at most %d prompts, got %d.", maxInputs, n))
	}
	if e := checkSampling(&f); e != nil {
		return completionRequest{}, e
	}
	for _, check := range []func() *Error{
		func() *Error { return checkInt(&f, "logprobs", 0, 5) },
		func() *Error { return checkInt(&f, "best_of", 0, 20) },
		func() *Error { return checkBool(&f, "echo") },
		func() *Error { return checkString(&f, "suffix") },
	} {
		if e := check(); e != nil {
			return completionRequest{}, e
		}
	}
	cr.Stream = f.get("stream").Bool()
	cr.IncludeUsage = f.get("stream_options").Get("include_usage").Bool()
	cr.Sizes = f.sizes(n)
	return cr, nil
}

// embeddingRequest is what the handler needs to know about a valid
// embeddings body.
type embeddingRequest struct {
	Model      string
	Base64     bool
	Dimensions int
	Inputs     int
}

// checkEmbedding validates an embeddings body.
func checkEmbedding(body []byte) (embeddingRequest, *Error) {
	var f fields
	f.read(body)
	model, e := checkModel(&f)
	if e != nil {
		return embeddingRequest{}, e
	}
	er := embeddingRequest{Model: model}
	texts, tokens, e := checkInputs(&f, "input", false)
	if e != nil {
		return embeddingRequest{}, e
	}
	er.Inputs = len(texts)
	if tokens {
		er.Inputs = tokenInputs(f.get("input"))
	}
	if er.Inputs > maxInputs {
		return embeddingRequest{}, invalidValue("input", fmt.Sprintf("expected at most %d inputs, got %d.", maxInputs, er.Inputs))
	}
	switch f := f.get("encoding_format"); {
	case !present(f), f.Str == "float" && f.Type == gjson.String:
	case f.Str == "base64" && f.Type == gjson.String:
		er.Base64 = true
	default:
		return embeddingRequest{}, invalidValue("encoding_format", fmt.Sprintf("expected float or base64, got %s.", f.Raw))
	}
	if e := checkInt(&f, "dimensions", 1, 1<<20); e != nil {
		return embeddingRequest{}, e
	}
	er.Dimensions = int(f.get("dimensions").Int())
	if e := checkString(&f, "user"); e != nil {
		return embeddingRequest{}, e
	}
	return er, nil
}

func tokenInputs(in gjson.Result) int {
	arr := in.Array()
	if len(arr) > 0 && arr[0].IsArray() {
		return len(arr)
	}
	return 1
}

// checkInputs validates a prompt or input: a string, an array of strings,
// an array of token IDs, or an array of token-ID arrays. It returns the
// texts, or tokens=true for token input. Empty strings are refused unless
// allowEmpty (a legacy prompt may be "").
func checkInputs(f *fields, name string, allowEmpty bool) (texts []string, tokens bool, e *Error) {
	in := owned(f.get(name)) // the texts are kept
	const want = "a string, an array of strings, an array of token IDs, or an array of token ID arrays"
	switch {
	case !present(in):
		return nil, false, missing(name)
	case in.Type == gjson.String:
		if in.Str == "" && !allowEmpty {
			return nil, false, invalidValue(name, "expected a non-empty string.")
		}
		return []string{in.Str}, false, nil
	case !in.IsArray():
		return nil, false, invalidType(name, want)
	}
	arr := in.Array()
	if len(arr) == 0 {
		return nil, false, invalidValue(name, "expected at least one input, got an empty array.")
	}
	switch {
	case arr[0].Type == gjson.String:
		for i, s := range arr {
			if s.Type != gjson.String {
				return nil, false, invalidType(fmt.Sprintf("%s[%d]", name, i), "a string (all elements must be strings)")
			}
			if s.Str == "" && !allowEmpty {
				return nil, false, invalidValue(fmt.Sprintf("%s[%d]", name, i), "expected a non-empty string.")
			}
			texts = append(texts, s.Str)
		}
		return texts, false, nil
	case arr[0].Type == gjson.Number:
		for i, t := range arr {
			if !isInt(t) || t.Int() < 0 {
				return nil, false, invalidType(fmt.Sprintf("%s[%d]", name, i), "a token ID (all elements must be non-negative integers)")
			}
		}
		return nil, true, nil
	case arr[0].IsArray():
		for i, row := range arr {
			if !row.IsArray() || len(row.Array()) == 0 {
				return nil, false, invalidType(fmt.Sprintf("%s[%d]", name, i), "a non-empty array of token IDs")
			}
			for j, t := range row.Array() {
				if !isInt(t) || t.Int() < 0 {
					return nil, false, invalidType(fmt.Sprintf("%s[%d][%d]", name, i, j), "a token ID")
				}
			}
		}
		return nil, true, nil
	}
	return nil, false, invalidType(name, want)
}
