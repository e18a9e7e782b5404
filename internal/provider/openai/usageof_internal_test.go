package openai

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// TestUsageOf reads a usage object in one walk (issue 18) exactly as a
// gjson.Get of each field read it: details, duplicates, escaped keys,
// numbers as strings, members of the wrong type, and no object at all.
func TestUsageOf(t *testing.T) {
	// got is the reading with a lookup of each field, as it was done.
	got := func(u gjson.Result) provider.Usage {
		return provider.Usage{
			PromptTokens:     int(u.Get("prompt_tokens").Int()),
			CompletionTokens: int(u.Get("completion_tokens").Int()),
			TotalTokens:      int(u.Get("total_tokens").Int()),
			CachedTokens:     int(u.Get("prompt_tokens_details.cached_tokens").Int()),
			ReasoningTokens:  int(u.Get("completion_tokens_details.reasoning_tokens").Int()),
		}
	}
	for _, u := range []string{
		`{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18,"prompt_tokens_details":{"cached_tokens":3,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":5}}`,
		`{"total_tokens":18,"completion_tokens":7,"prompt_tokens":11}`,
		`{"prompt_tokens":1,"prompt_tokens":2,"prompt_tokens_details":{"cached_tokens":4},"prompt_tokens_details":{"cached_tokens":9}}`,
		`{"pr\u006fmpt_tokens":12,"completion_tokens":"8","total_tokens":20.0}`,
		`{"prompt_tokens_details":null,"completion_tokens_details":[1],"prompt_tokens":{"a":1}}`,
		`{"prompt_tokens_details":{"cached_tokens":2,"cached_tokens":3}}`,
		// A details object without the detail, or not an object, gives
		// way to a later duplicate that has it, as gjson's path does.
		`{"prompt_tokens_details":{"audio_tokens":1},"prompt_tokens_details":{"cached_tokens":9}}`,
		`{"prompt_tokens_details":null,"prompt_tokens_details":{"cached_tokens":9},"completion_tokens_details":5,"completion_tokens_details":{"reasoning_tokens":4}}`,
		`{}`, `[]`, `[11,7]`, `null`, `7`,
	} {
		r := gjson.Parse(u)
		if want := got(r); usageOf(r) != want {
			t.Errorf("usageOf(%s) = %+v, want %+v", u, usageOf(r), want)
		}
	}
}

// TestAnswerUsage checks a complete answer and reads its usage in one
// pass (issue 18) as the check and the gjson.Get of "usage" that it
// replaces did: the first "usage" counts, one that is not an object is
// none, and an answer that is not valid JSON is refused.
func TestAnswerUsage(t *testing.T) {
	for _, b := range []string{
		`{"id":"c","choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
		`{"usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2}}`,
		`{"usage":null,"usage":{"prompt_tokens":2}}`,
		`{"us\u0061ge":{"prompt_tokens":5}}`,
		`{"choices":[{"usage":{"prompt_tokens":9}}]}`,
		` {"usage" : {"total_tokens":7} } `,
		`{"usage":[1,2]}`, `{"usage":"x"}`, `{}`, `[]`, `[{"usage":{"prompt_tokens":1}}]`, `7`, `null`,
		`{"usage":{"prompt_tokens":1}`, `{"usage":{"prompt_tokens":1}} x`, `{"usage":{"prompt_tokens":1,}}`,
		`{"a":tru}`, ``, `{"usage":{"prompt_tokens":1}}{}`,
	} {
		var want provider.Usage
		wantOK := false
		valid := gjson.Valid(b)
		if u := gjson.Get(b, "usage"); valid && u.IsObject() {
			want, wantOK = usageOf(u), true
		}
		got, ok, err := answerUsage([]byte(b))
		if (err == nil) != valid || got != want || ok != wantOK {
			t.Errorf("answerUsage(%s) = %+v, %v, %v; want %+v, %v, valid %v", b, got, ok, err, want, wantOK, valid)
		}
	}
}
