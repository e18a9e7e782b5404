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

func (w *chunkWriter) delta(delta map[string]any, finish any) {
	w.add([]any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}, nil)
}

// ChatStream streams the same answer as Chat, word by word.
func (p *Provider) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	w := &chunkWriter{includeUsage: r.IncludeUsage, head: map[string]any{
		"id": p.id("chatcmpl"), "object": "chat.completion.chunk", "created": p.now().Unix(),
		"model": r.Model, "system_fingerprint": "fp_mock",
	}}
	usage := provider.Usage{PromptTokens: promptTokens(r.Body)}
	finish := "stop"
	if c, legacy, ok := pickCall(r.Body); ok {
		usage.CompletionTokens = countTokens(c.args) + 2
		half := len(c.args) / 2
		if legacy {
			w.delta(map[string]any{"role": "assistant", "content": nil, "function_call": map[string]string{"name": c.name, "arguments": ""}}, nil)
			for _, part := range []string{c.args[:half], c.args[half:]} {
				w.delta(map[string]any{"function_call": map[string]string{"arguments": part}}, nil)
			}
			finish = "function_call"
		} else {
			w.delta(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"index": 0, "id": p.id("call"), "type": "function", "function": map[string]string{"name": c.name, "arguments": ""}}}}, nil)
			for _, part := range []string{c.args[:half], c.args[half:]} {
				w.delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]string{"arguments": part}}}}, nil)
			}
			finish = "tool_calls"
		}
	} else {
		words := answerWords(lastUserText(r.Body), maxTokens(r.Body))
		usage.CompletionTokens = len(words)
		if mt := maxTokens(r.Body); mt > 0 && len(words) == mt {
			finish = "length"
		}
		w.delta(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
		for i, word := range words {
			if i > 0 {
				word = " " + word
			}
			w.delta(map[string]any{"content": word}, nil)
		}
	}
	w.delta(map[string]any{}, finish)
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	if r.IncludeUsage {
		w.add([]any{}, usageJSON(usage))
	}
	return &chunks{ctx: ctx, list: w.out, usage: usage}, nil
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
