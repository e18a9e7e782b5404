package openai

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// estimate counts a request's usage with the tokenizer, for upstreams that
// report none. It is flagged as an estimate.
func estimate(r *provider.Request, answer *tokens.Text) provider.Usage {
	msgs := gjson.GetBytes(r.Body, "messages")
	prompt, n := provider.PromptText(msgs)
	if !msgs.Exists() {
		prompt = gjson.GetBytes(r.Body, "prompt").String()
	}
	// OpenAI's chat format adds about 3 tokens per message and 3 to prime
	// the answer.
	overhead := 3 + 3*n
	u := provider.Usage{
		PromptTokens:     tokens.Count(r.Model, prompt) + overhead,
		CompletionTokens: answer.Count(r.Model),
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
func answerText(b []byte) *tokens.Text {
	t := &tokens.Text{}
	gjson.GetBytes(b, "choices").ForEach(func(_, ch gjson.Result) bool {
		t.Add(ch.Get("message.content").Str)
		t.Add(ch.Get("message.function_call.arguments").Str)
		ch.Get("message.tool_calls").ForEach(func(_, tc gjson.Result) bool {
			t.Add(tc.Get("function.arguments").Str)
			return true
		})
		t.Add(ch.Get("text").Str)
		return true
	})
	return t
}

// answerUsage checks a whole answer and returns its usage, counted when
// absent, in one pass: the check finds the usage object (the first, as
// gjson.Get would) as it goes. It took a check of the answer, then a
// second walk of it to its usage, which OpenAI puts last (issue 18).
// One difference from gjson's check: an answer nested deeper than
// jsonscan.MaxDepth is invalid here, where gjson had no limit. The
// estimate, when there is no usage, is of the answer as the upstream
// sent it, before a legacy functions request's translation keeps only
// its first call: the upstream generated, and bills, them all.
func answerUsage(r *provider.Request, b []byte) (provider.Usage, error) {
	var usage string
	rd := jsonscan.NewReader(jsonscan.View(b)) // read in place: only numbers are kept
	err := rd.Object(func(key string) error {
		if key != "usage" || usage != "" {
			return nil // skipped, and checked, by the reader
		}
		var err error
		usage, err = rd.Skip()
		return err
	})
	if err == nil {
		err = rd.End()
	}
	if err != nil {
		return provider.Usage{}, err
	}
	if isObject(usage) {
		return usageOf(gjson.Parse(usage)), nil
	}
	return estimate(r, answerText(b)), nil
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
