package gemini

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// usage is Gemini's usageMetadata in OpenAI's terms.
type usage struct {
	provider.Usage
	reasoning int // thoughtsTokenCount, part of CompletionTokens
}

// usageOf reads usageMetadata: prompt = promptTokenCount (which includes
// cached tokens) + toolUsePromptTokenCount; completion =
// candidatesTokenCount + thoughtsTokenCount; total = totalTokenCount.
func usageOf(m gjson.Result) (usage, bool) {
	if !m.IsObject() {
		return usage{}, false
	}
	n := func(key string) int { return int(min(max(m.Get(key).Int(), 0), 1<<40)) }
	var u usage
	u.PromptTokens = n("promptTokenCount") + n("toolUsePromptTokenCount")
	u.reasoning = n("thoughtsTokenCount")
	u.CompletionTokens = n("candidatesTokenCount") + u.reasoning
	u.CachedTokens = n("cachedContentTokenCount")
	u.TotalTokens = n("totalTokenCount")
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u, true
}

// appendUsage renders an OpenAI usage object.
func appendUsage(b []byte, u usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CachedTokens), 10)
	b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(u.reasoning), 10)
	return append(b, "}}"...)
}

// maxCountedText bounds the answer text kept for counting when Gemini
// reports no usage; past it the count is extrapolated from the length.
const maxCountedText = 1 << 20

// textCounter keeps an answer's text for counting, up to a bound.
type textCounter struct {
	b     strings.Builder
	extra int // bytes seen beyond the bound
}

func (t *textCounter) add(s string) {
	room := maxCountedText - t.b.Len()
	if len(s) > room {
		t.b.WriteString(s[:max(room, 0)])
		t.extra += len(s) - max(room, 0)
		return
	}
	t.b.WriteString(s)
}

// estimate counts usage with the tokenizer, for an answer without
// usageMetadata. It is flagged as an estimate.
func estimate(r *provider.Request, answer *textCounter) usage {
	var prompt strings.Builder
	msgs := gjson.GetBytes(r.Body, "messages")
	msgs.ForEach(func(_, m gjson.Result) bool {
		prompt.WriteString(m.Get("content").String())
		prompt.WriteByte('\n')
		return true
	})
	var u usage
	u.PromptTokens = tokens.Count(r.Model, prompt.String()) + 3 + 3*len(msgs.Array())
	u.CompletionTokens = tokens.Count(r.Model, answer.b.String()) + answer.extra/4
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.Estimated = true
	return u
}
