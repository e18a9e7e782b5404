package gemini

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// usage is Gemini's usageMetadata in OpenAI's terms; ReasoningTokens is
// thoughtsTokenCount, part of CompletionTokens.
type usage struct {
	provider.Usage
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
	u.ReasoningTokens = n("thoughtsTokenCount")
	u.CompletionTokens = n("candidatesTokenCount") + u.ReasoningTokens
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
	b = strconv.AppendInt(b, int64(u.ReasoningTokens), 10)
	return append(b, "}}"...)
}

// estimate counts usage with the tokenizer, for an answer without
// usageMetadata. It is flagged as an estimate.
func estimate(r *provider.Request, answer *tokens.Text) usage {
	msgs := gjson.GetBytes(r.Body, "messages")
	prompt, n := provider.PromptText(msgs)
	var u usage
	u.PromptTokens = tokens.Count(r.Model, prompt) + 3 + 3*n
	u.CompletionTokens = answer.Count(r.Model)
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.Estimated = true
	return u
}
