package openai

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// plainAnswer is a chat completion as OpenAI answers it, its usage last.
const plainAnswer = `{"id":"chatcmpl-fake00000000000000000001","object":"chat.completion","created":1795701376,` +
	`"model":"gpt-5.4-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hello, benchmark! ` +
	`It is good to meet you.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":13,"completion_tokens":9,"total_tokens":22,"prompt_tokens_details":{"cached_tokens":0,` +
	`"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,` +
	`"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_fake"}`

// twoPasses is how an answer was read before answerUsage (issue 18): a
// check, then a walk to the usage.
func twoPasses(r *provider.Request, b []byte) (provider.Usage, bool) {
	if !gjson.ValidBytes(b) {
		return provider.Usage{}, false
	}
	if u := gjson.Get(jsonscan.View(b), "usage"); u.IsObject() {
		return usageOf(u), true
	}
	return estimate(r, answerText(b)), true
}

// TestAnswerUsage: the one pass accepts and refuses the answers the check
// did, and finds the usage the walk found: the first of duplicates, under
// an escaped key, none when it is not an object (counted then), and none
// in an answer that is not an object.
func TestAnswerUsage(t *testing.T) {
	r := &provider.Request{Model: "gpt-5.4-mini", Body: []byte(`{"messages":[{"role":"user","content":"hi there"}]}`)}
	for _, b := range []string{
		plainAnswer,
		`{"usage":{"prompt_tokens":1,"total_tokens":1},"usage":{"prompt_tokens":2,"total_tokens":2}}`,
		`{"us\u0061ge":{"prompt_tokens":3,"completion_tokens":4}}`,
		`{"usage":null,"choices":[{"message":{"content":"four words of text"}}]}`,
		`{"usage":[1,2],"usage":{"prompt_tokens":5}}`,
		`{"choices":[{"message":{"content":"counted"}}]}`,
		` {"usage" : {"prompt_tokens" : 6} } `,
		`[{"usage":{"prompt_tokens":7}}]`, `"usage"`, `null`, `{}`,
		// Refused.
		``, `{`, `{"usage":{"prompt_tokens":1}`, `{"usage":{"prompt_tokens":1}}}`, `{"a":1,}`,
		`{"usage":{"prompt_tokens":01}}`, "{\"a\":\"\x01\"}", `{"a":tru}`, `{"a":1} {"b":2}`,
		`{"usage":{"prompt_tokens":1},"choices":[}`,
	} {
		want, wantOK := twoPasses(r, []byte(b))
		got, err := answerUsage(r, []byte(b))
		if (err == nil) != wantOK || got != want {
			t.Errorf("answerUsage(%s) = %+v, %v; want %+v, valid %v", b, got, err, want, wantOK)
		}
	}
}

// BenchmarkAnswerUsage reads a plain answer's usage: in one pass, and as
// it was read (a check, then a walk to the usage).
func BenchmarkAnswerUsage(b *testing.B) {
	r := &provider.Request{Model: "gpt-5.4-mini"}
	body := []byte(plainAnswer)
	b.Run("one-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			answerUsage(r, body)
		}
	})
	b.Run("two-passes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			twoPasses(r, body)
		}
	})
}
