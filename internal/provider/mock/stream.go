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

func (w *chunkWriter) delta(index int, delta map[string]any, finish any) {
	w.add([]any{map[string]any{"index": index, "delta": delta, "logprobs": nil, "finish_reason": finish}}, nil)
}

// ChatStream streams the same answer as Chat, word by word; with n > 1
// the choices' chunks follow one another, each with its own role and
// finish chunks.
func (p *Provider) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	w := &chunkWriter{includeUsage: r.IncludeUsage, head: map[string]any{
		"id": p.id("chatcmpl"), "object": "chat.completion.chunk", "created": p.now().Unix(),
		"model": r.Model, "system_fingerprint": "fp_mock",
	}}
	usage := provider.Usage{PromptTokens: promptTokens(r.Body)}
	for i := range max(1, int(gjson.GetBytes(r.Body, "n").Int())) {
		usage.CompletionTokens += p.streamChoice(w, r, i)
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	if r.IncludeUsage {
		w.add([]any{}, usageJSON(usage))
	}
	return &chunks{ctx: ctx, list: w.out, usage: usage}, nil
}

// streamChoice adds the chunks of choice index and returns its tokens.
func (p *Provider) streamChoice(w *chunkWriter, r *provider.Request, index int) int {
	finish, tokens := "stop", 0
	if c, legacy, ok := pickCall(r.Body); ok {
		tokens = countTokens(c.args) + 2
		half := len(c.args) / 2
		first, part := map[string]any{"name": c.name, "arguments": ""}, func(s string) any { return map[string]string{"arguments": s} }
		key, finish := "function_call", "function_call"
		if !legacy {
			key, finish = "tool_calls", "tool_calls"
			first = map[string]any{"index": 0, "id": p.id("call"), "type": "function", "function": map[string]string{"name": c.name, "arguments": ""}}
			part = func(s string) any {
				return []any{map[string]any{"index": 0, "function": map[string]string{"arguments": s}}}
			}
			w.delta(index, map[string]any{"role": "assistant", "content": nil, key: []any{first}}, nil)
		} else {
			w.delta(index, map[string]any{"role": "assistant", "content": nil, key: first}, nil)
		}
		for _, s := range []string{c.args[:half], c.args[half:]} {
			w.delta(index, map[string]any{key: part(s)}, nil)
		}
		w.delta(index, map[string]any{}, finish)
		return tokens
	}
	words := answerWords(lastUserText(r.Body), maxTokens(r.Body))
	if mt := maxTokens(r.Body); mt > 0 && len(words) == mt {
		finish = "length"
	}
	w.delta(index, map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
	for i, word := range words {
		if i > 0 {
			word = " " + word
		}
		w.delta(index, map[string]any{"content": word}, nil)
	}
	w.delta(index, map[string]any{}, finish)
	return len(words)
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
	b, err := json.Marshal(map[string]any{"id": p.id("cmpl"), "object": "text_completion", "created": p.now().Unix(),
		"model": r.Model, "choices": choices, "usage": usageJSON(usage)})
	return &provider.Response{Body: b, Usage: usage}, err
}

// CompleteStream streams a legacy completion word by word.
func (p *Provider) CompleteStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	w := &chunkWriter{includeUsage: r.IncludeUsage, head: map[string]any{
		"id": p.id("cmpl"), "object": "text_completion", "created": p.now().Unix(), "model": r.Model,
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
