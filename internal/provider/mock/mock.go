// Package mock is the built-in provider used by `serve --dev`, the tests and
// the benchmarks: deterministic answers, streams word by word, function
// calls when functions or tools are offered, and embeddings of any size.
package mock

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Models are the mock's own models; they are not part of the advertised
// catalogue. They carry round illustrative prices (1 and 2 USD per
// million tokens, 0.10 for embeddings) so that `serve --dev` shows costs
// in the dashboard; nothing is billed by anyone.
var Models = []catalog.Entry{
	{ID: "mock-chat", Mode: catalog.ModeChat, ContextWindow: 128000, MaxOutputTokens: 4096,
		InputPrice: 1_000_000, OutputPrice: 2_000_000,
		Functions: true, Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-chat"}}},
	{ID: "mock-instruct", Mode: catalog.ModeCompletion, ContextWindow: 8192, MaxOutputTokens: 4096,
		InputPrice: 1_000_000, OutputPrice: 2_000_000,
		Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-instruct"}}},
	{ID: "mock-embedding", Mode: catalog.ModeEmbedding, ContextWindow: 8191, EmbeddingDims: 1536,
		InputPrice: 100_000, Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-embedding"}}},
}

// Provider is the mock upstream.
type Provider struct {
	name string
	seq  atomic.Int64
	now  func() time.Time
}

var (
	_ provider.Chatter   = (*Provider)(nil)
	_ provider.Streamer  = (*Provider)(nil)
	_ provider.Completer = (*Provider)(nil)
	_ provider.Embedder  = (*Provider)(nil)
)

// New returns a mock provider with the given name.
func New(name string) *Provider { return &Provider{name: name, now: time.Now} }

// Name returns the configured name.
func (p *Provider) Name() string { return p.name }

// Type returns "mock".
func (p *Provider) Type() string { return "mock" }

func (p *Provider) id(prefix string) string { return fmt.Sprintf("%s-mock%d", prefix, p.seq.Add(1)) }

// answerWords is the deterministic answer to a prompt.
func answerWords(prompt string, max int) []string {
	words := []string{"This", "is", "the", "Switchyard", "mock", "model", "answering:"}
	words = append(words, strings.Fields(prompt)...)
	if len(words) > 24 {
		words = words[:24]
	}
	if max > 0 && len(words) > max {
		words = words[:max]
	}
	return words
}

// countTokens is the mock's token count: one per word, at least one.
func countTokens(s string) int { return max(1, len(strings.Fields(s))) }

// lastUserText returns the text of the last user message.
func lastUserText(body []byte) string {
	msgs := gjson.GetBytes(body, "messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").Str != "user" {
			continue
		}
		c := msgs[i].Get("content")
		if c.Type == gjson.String {
			return c.Str
		}
		var parts []string
		c.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").Str == "text" {
				parts = append(parts, part.Get("text").Str)
			}
			return true
		})
		return strings.Join(parts, " ")
	}
	return ""
}

func promptTokens(body []byte) int {
	n := 0
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		n += 3 + countTokens(m.Get("content").String())
		return true
	})
	return n
}

// call is a function call the mock decided to make.
type call struct{ name, args string }

// pickCall returns the function the mock calls, if the request offers one
// and does not forbid calls.
func pickCall(body []byte) (c call, legacy, ok bool) {
	tools, fns := gjson.GetBytes(body, "tools"), gjson.GetBytes(body, "functions")
	choice := gjson.GetBytes(body, "tool_choice")
	if fns.Exists() {
		legacy, choice = true, gjson.GetBytes(body, "function_call")
	}
	if choice.Str == "none" {
		return call{}, legacy, false
	}
	var defs []gjson.Result
	if legacy {
		defs = fns.Array()
	} else {
		for _, t := range tools.Array() {
			defs = append(defs, t.Get("function"))
		}
	}
	if len(defs) == 0 {
		return call{}, legacy, false
	}
	def := defs[0]
	forced := choice.Get("name").Str
	if forced == "" {
		forced = choice.Get("function.name").Str
	}
	for _, d := range defs {
		if forced != "" && d.Get("name").Str == forced {
			def = d
		}
	}
	args := map[string]any{}
	for _, req := range def.Get("parameters.required").Array() {
		switch def.Get("parameters.properties." + req.Str + ".type").Str {
		case "string":
			args[req.Str] = "Paris"
		case "number", "integer":
			args[req.Str] = 1
		case "boolean":
			args[req.Str] = true
		default:
			args[req.Str] = nil
		}
	}
	b, _ := json.Marshal(args)
	return call{name: def.Get("name").Str, args: string(b)}, legacy, true
}

func maxTokens(body []byte) int {
	if v := gjson.GetBytes(body, "max_completion_tokens"); v.Exists() {
		return int(v.Int())
	}
	return int(gjson.GetBytes(body, "max_tokens").Int())
}

// Chat answers a chat completion.
func (p *Provider) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	words := answerWords(lastUserText(r.Body), maxTokens(r.Body))
	usage := provider.Usage{PromptTokens: promptTokens(r.Body), CompletionTokens: len(words)}
	msg := map[string]any{"role": "assistant", "content": strings.Join(words, " "), "refusal": nil}
	finish := "stop"
	if mt := maxTokens(r.Body); mt > 0 && len(words) == mt {
		finish = "length"
	}
	if c, legacy, ok := pickCall(r.Body); ok {
		msg["content"] = nil
		usage.CompletionTokens = countTokens(c.args) + 2
		if legacy {
			msg["function_call"] = map[string]string{"name": c.name, "arguments": c.args}
			finish = "function_call"
		} else {
			msg["tool_calls"] = []any{map[string]any{"id": p.id("call"), "type": "function",
				"function": map[string]string{"name": c.name, "arguments": c.args}}}
			finish = "tool_calls"
		}
	}
	n := max(1, int(gjson.GetBytes(r.Body, "n").Int()))
	usage.CompletionTokens *= n // every choice's tokens count, as OpenAI reports them
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	choices := make([]any, n)
	for i := range choices {
		choices[i] = map[string]any{"index": i, "message": msg, "logprobs": nil, "finish_reason": finish}
	}
	b, err := json.Marshal(map[string]any{
		"id": p.id("chatcmpl"), "object": "chat.completion", "created": p.now().Unix(), "model": r.Model,
		"choices": choices, "usage": usageJSON(usage), "system_fingerprint": "fp_mock",
	})
	return &provider.Response{Body: b, Usage: usage}, err
}

func usageJSON(u provider.Usage) map[string]int {
	return map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens}
}

// Embed returns deterministic unit vectors, one per input, as floats; the
// gateway encodes base64 when the client asks for it.
func (p *Provider) Embed(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	dims := int(gjson.GetBytes(r.Body, "dimensions").Int())
	if dims <= 0 {
		dims = 1536
	}
	var inputs []string
	in := gjson.GetBytes(r.Body, "input")
	if in.IsArray() {
		arr := in.Array()
		if len(arr) > 0 && arr[0].Type == gjson.Number {
			inputs = []string{in.Raw} // one token array is one input
		} else {
			for _, x := range arr {
				inputs = append(inputs, x.String())
			}
		}
	} else {
		inputs = []string{in.Str}
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, s := range inputs {
		tokens += countTokens(s)
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vector(s, dims)}
	}
	usage := provider.Usage{PromptTokens: tokens, TotalTokens: tokens}
	b, err := json.Marshal(map[string]any{"object": "list", "data": data, "model": r.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
	return &provider.Response{Body: b, Usage: usage}, err
}

// vector derives a unit vector of dims floats from s.
func vector(s string, dims int) []float32 {
	seed := sha256.Sum256([]byte(s))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:16])))
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}
