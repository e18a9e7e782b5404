// Package mock is the built-in provider used by `serve --dev`, the tests and
// the benchmarks: deterministic answers, streams token by token, function
// calls with arguments that satisfy the function's schema when the user
// has the last word, text after a tool result (so agent loops end), JSON
// for response_format, stop sequences, max_tokens, n, logprobs, and
// embeddings of any size.
package mock

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Models are the mock's own models; they are not part of the advertised
// catalogue. They carry round illustrative prices (1 and 2 USD per
// million tokens, 0.10 for embeddings) so that `serve --dev` shows costs
// in the dashboard; nothing is billed by anyone. Their created date is the
// day the mock first shipped.
var Models = []catalog.Entry{
	{ID: "mock-chat", Mode: catalog.ModeChat, ContextWindow: 128000, MaxOutputTokens: 4096,
		InputPrice: 1_000_000, OutputPrice: 2_000_000, Created: shipped,
		Functions: true, Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-chat"}}},
	{ID: "mock-instruct", Mode: catalog.ModeCompletion, ContextWindow: 8192, MaxOutputTokens: 4096,
		InputPrice: 1_000_000, OutputPrice: 2_000_000, Created: shipped,
		Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-instruct"}}},
	{ID: "mock-embedding", Mode: catalog.ModeEmbedding, ContextWindow: 8191, EmbeddingDims: 1536,
		InputPrice: 100_000, Created: shipped, Deployments: []catalog.Deployment{{Provider: "mock", UpstreamID: "mock-embedding"}}},
}

// shipped is the created date of the mock's models.
var shipped = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

// Provider is the mock upstream.
type Provider struct {
	name     string
	now      func() time.Time
	timeouts provider.Timeouts
}

var (
	_ provider.Timeouter = (*Provider)(nil)
	_ provider.Chatter   = (*Provider)(nil)
	_ provider.Streamer  = (*Provider)(nil)
	_ provider.Completer = (*Provider)(nil)
	_ provider.Embedder  = (*Provider)(nil)
)

// New returns a mock provider with the given name and no timeouts.
func New(name string) *Provider { return &Provider{name: name, now: time.Now} }

// NewWithTimeouts returns a mock provider whose deployments the gateway
// bounds by t, as a configured mock's are. The mock answers at once; t
// matters to callers that delay or hold its answers.
func NewWithTimeouts(name string, t provider.Timeouts) *Provider {
	p := New(name)
	p.timeouts = t
	return p
}

// Timeouts returns the timeouts the mock was made with.
func (p *Provider) Timeouts() provider.Timeouts { return p.timeouts }

// Name returns the configured name.
func (p *Provider) Name() string { return p.name }

// Type returns "mock".
func (p *Provider) Type() string { return "mock" }

// id returns prefix followed by 26 random characters, so that IDs do not
// repeat across restarts.
func (p *Provider) id(prefix string) string { return prefix + crand.Text() }

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
