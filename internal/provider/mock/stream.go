package mock

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// chunks is a stream of prepared chunks.
type chunks struct {
	ctx   context.Context
	list  [][]byte
	usage provider.Usage
}

func (c *chunks) Next() ([]byte, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.list) == 0 {
		return nil, io.EOF
	}
	b := c.list[0]
	c.list = c.list[1:]
	return b, nil
}

func (c *chunks) Usage() provider.Usage { return c.usage }
func (c *chunks) Close() error          { return nil }

// chunkWriter builds chunks that share id, created and model.
type chunkWriter struct {
	head         map[string]any
	includeUsage bool
	out          [][]byte
}

func (w *chunkWriter) add(choices []any, usage any) {
	m := make(map[string]any, len(w.head)+2)
	for k, v := range w.head {
		m[k] = v
	}
	m["choices"] = choices
	if w.includeUsage {
		m["usage"] = usage
	}
	b, _ := json.Marshal(m)
	w.out = append(w.out, b)
}

func (w *chunkWriter) delta(index int, delta map[string]any, logprobs, finish any) {
	w.add([]any{map[string]any{"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish}}, nil)
}

// ChatStream streams the same answer as Chat, token by token; with n > 1
// the choices' chunks follow one another, each with its own role and
// finish chunks.
func (p *Provider) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	w := &chunkWriter{includeUsage: r.IncludeUsage, head: map[string]any{
		"id": p.id("chatcmpl-"), "object": "chat.completion.chunk", "created": p.now().Unix(),
		"model": r.Model, "system_fingerprint": "fp_mock",
	}}
	rep := decide(r.Body)
	n := choiceCount(r.Body)
	usage := provider.Usage{PromptTokens: promptTokens(r.Body), CompletionTokens: n * rep.completionTokens()}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	for i := range n {
		if rep.calls {
			p.streamCall(w, &rep, i)
		} else {
			streamContent(w, r.Body, &rep, i)
		}
	}
	if r.IncludeUsage {
		w.add([]any{}, usageJSON(usage))
	}
	return &chunks{ctx: ctx, list: w.out, usage: usage}, nil
}

// streamCall adds the chunks of choice index when it is a function call:
// the name, then the arguments in two halves.
func (p *Provider) streamCall(w *chunkWriter, rep *reply, index int) {
	c := rep.call
	first, part := map[string]any{"name": c.name, "arguments": ""}, func(s string) any { return map[string]string{"arguments": s} }
	key := "function_call"
	if !rep.legacy {
		key = "tool_calls"
		first = map[string]any{"index": 0, "id": p.id("call_"), "type": "function", "function": map[string]string{"name": c.name, "arguments": ""}}
		part = func(s string) any {
			return []any{map[string]any{"index": 0, "function": map[string]string{"arguments": s}}}
		}
		w.delta(index, map[string]any{"role": "assistant", "content": nil, key: []any{first}}, nil, nil)
	} else {
		w.delta(index, map[string]any{"role": "assistant", "content": nil, key: first}, nil, nil)
	}
	half := len(c.args) / 2
	for _, s := range []string{c.args[:half], c.args[half:]} {
		w.delta(index, map[string]any{key: part(s)}, nil, nil)
	}
	w.delta(index, map[string]any{}, nil, rep.finish)
}

// streamContent adds the chunks of choice index when it is content: the
// role, one chunk per token (with its logprobs when asked), the finish.
func streamContent(w *chunkWriter, body []byte, rep *reply, index int) {
	top, withLogprobs := wantLogprobs(body)
	w.delta(index, map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil, nil)
	for _, tok := range rep.tokens {
		var lp any
		if withLogprobs {
			lp = map[string]any{"content": []any{tokenLogprob(tok, top)}, "refusal": nil}
		}
		w.delta(index, map[string]any{"content": tok}, lp, nil)
	}
	w.delta(index, map[string]any{}, nil, rep.finish)
}

// completionPrompts returns the prompts of a legacy completion request.
func completionPrompts(body []byte) []string {
	p := gjson.GetBytes(body, "prompt")
	if !p.IsArray() {
		return []string{p.Str}
	}
	arr := p.Array()
	if len(arr) > 0 && arr[0].Type == gjson.Number {
		return []string{p.Raw}
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		out[i] = x.String()
	}
	return out
}

func completionMax(body []byte) int {
	if v := gjson.GetBytes(body, "max_tokens"); v.Exists() {
		return int(v.Int())
	}
	return 16
}

// Complete answers a legacy completion: one choice per prompt.
func (p *Provider) Complete(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	var choices []any
	usage := provider.Usage{}
	for i, prompt := range completionPrompts(r.Body) {
		words := answerWords(prompt, completionMax(r.Body))
		finish := "stop"
		if len(words) == completionMax(r.Body) {
			finish = "length"
		}
		usage.PromptTokens += countTokens(prompt)
		usage.CompletionTokens += len(words)
		choices = append(choices, map[string]any{"text": " " + strings.Join(words, " "), "index": i, "logprobs": nil, "finish_reason": finish})
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	b, err := json.Marshal(map[string]any{"id": p.id("cmpl-"), "object": "text_completion", "created": p.now().Unix(),
		"model": r.Model, "choices": choices, "usage": usageJSON(usage)})
	return &provider.Response{Body: b, Usage: usage}, err
}

// CompleteStream streams a legacy completion word by word.
func (p *Provider) CompleteStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	w := &chunkWriter{includeUsage: r.IncludeUsage, head: map[string]any{
		"id": p.id("cmpl-"), "object": "text_completion", "created": p.now().Unix(), "model": r.Model,
	}}
	usage := provider.Usage{}
	for i, prompt := range completionPrompts(r.Body) {
		words := answerWords(prompt, completionMax(r.Body))
		usage.PromptTokens += countTokens(prompt)
		usage.CompletionTokens += len(words)
		for _, word := range words {
			w.add([]any{map[string]any{"text": " " + word, "index": i, "logprobs": nil, "finish_reason": nil}}, nil)
		}
		finish := "stop"
		if len(words) == completionMax(r.Body) {
			finish = "length"
		}
		w.add([]any{map[string]any{"text": "", "index": i, "logprobs": nil, "finish_reason": finish}}, nil)
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	if r.IncludeUsage {
		w.add([]any{}, usageJSON(usage))
	}
	return &chunks{ctx: ctx, list: w.out, usage: usage}, nil
}
