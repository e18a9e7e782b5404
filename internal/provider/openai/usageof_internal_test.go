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
