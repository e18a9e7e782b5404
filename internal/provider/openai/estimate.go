package openai

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// maxCountedText bounds the answer text kept for counting; past it the
// count is extrapolated from the byte length, so memory stays bounded
// whatever the stream's length.
const maxCountedText = 1 << 20

// textCounter keeps a stream's answer text for counting, up to a bound.
type textCounter struct {
	b     strings.Builder
	extra int // bytes seen beyond the bound
}

func (t *textCounter) add(s string) {
	if s == "" {
		return
	}
	if room := maxCountedText - t.b.Len(); room < len(s) {
		if room > 0 {
			t.b.WriteString(s[:room])
		}
		t.extra += len(s) - max(room, 0)
		return
	}
	t.b.WriteString(s)
}

func (t *textCounter) String() string { return t.b.String() }

// estimate counts a request's usage with the tokenizer, for upstreams that
// report none. It is flagged as an estimate.
func estimate(r *provider.Request, answer *textCounter) provider.Usage {
	var prompt strings.Builder
	msgs := gjson.GetBytes(r.Body, "messages")
	msgs.ForEach(func(_, m gjson.Result) bool {
		prompt.WriteString(m.Get("content").String())
		prompt.WriteByte('\n')
		return true
	})
	if !msgs.Exists() {
		prompt.WriteString(gjson.GetBytes(r.Body, "prompt").String())
	}
	// OpenAI's chat format adds about 3 tokens per message and 3 to prime
	// the answer.
	overhead := 3 + 3*len(msgs.Array())
	u := provider.Usage{
		PromptTokens:     tokens.Count(r.Model, prompt.String()) + overhead,
		CompletionTokens: tokens.Count(r.Model, answer.String()) + answer.extra/4,
		Estimated:        true,
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// usageChunk is the final chunk carrying usage, with choices: [].
func usageChunk(h chunkHead, u provider.Usage) []byte {
	return []byte(`{"id":` + strconv.Quote(h.id) + `,"object":` + strconv.Quote(h.object) +
		`,"created":` + strconv.FormatInt(h.created, 10) + `,"model":` + strconv.Quote(h.model) +
		`,"choices":[],"usage":{"prompt_tokens":` + strconv.Itoa(u.PromptTokens) +
		`,"completion_tokens":` + strconv.Itoa(u.CompletionTokens) + `,"total_tokens":` + strconv.Itoa(u.TotalTokens) + `}}`)
}

// answerText collects the text of a complete chat or text completion.
func answerText(b []byte) *textCounter {
	t := &textCounter{}
	gjson.GetBytes(b, "choices").ForEach(func(_, ch gjson.Result) bool {
		t.add(ch.Get("message.content").Str)
		t.add(ch.Get("message.function_call.arguments").Str)
		ch.Get("message.tool_calls").ForEach(func(_, tc gjson.Result) bool {
			t.add(tc.Get("function.arguments").Str)
			return true
		})
		t.add(ch.Get("text").Str)
		return true
	})
	return t
}

// usageOrEstimate returns the answer's usage, counted when absent.
func usageOrEstimate(r *provider.Request, b []byte) provider.Usage {
	if u := gjson.GetBytes(b, "usage"); u.IsObject() {
		return usageOf(u)
	}
	return estimate(r, answerText(b))
}

// estimateInput counts an embeddings request's input, for upstreams that
// report no usage: text with the tokenizer, token IDs one each.
func estimateInput(r *provider.Request) provider.Usage {
	n := 0
	var count func(v gjson.Result)
	count = func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			n += tokens.Count(r.Model, v.Str)
		case v.Type == gjson.Number:
			n++
		case v.IsArray():
			v.ForEach(func(_, x gjson.Result) bool { count(x); return true })
		}
	}
	count(gjson.GetBytes(r.Body, "input"))
	return provider.Usage{PromptTokens: n, TotalTokens: n, Estimated: true}
}
