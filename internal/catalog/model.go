package catalog

import "time"

// Mode of a model: which kind of endpoint it serves.
type Mode string

// The modes.
const (
	ModeChat       Mode = "chat"
	ModeCompletion Mode = "completion" // legacy /v1/completions
	ModeEmbedding  Mode = "embedding"
)

// valid reports whether m is one of the modes.
func (m Mode) valid() bool {
	return m == ModeChat || m == ModeCompletion || m == ModeEmbedding
}

// Reasoning names how a model's thinking is steered on its vendor's API,
// which decides what a client's reasoning effort becomes upstream.
type Reasoning string

// The reasoning controls.
const (
	// ReasoningNone: the model does not think, or cannot be steered.
	ReasoningNone Reasoning = ""
	// ReasoningEffort: OpenAI's reasoning_effort (o-series, gpt-5).
	ReasoningEffort Reasoning = "effort"
	// ReasoningBudget: a thinking budget in tokens (Anthropic's
	// thinking.type "enabled" up to Claude 4.5; Gemini 2.5's
	// thinkingBudget).
	ReasoningBudget Reasoning = "budget"
	// ReasoningAdaptive: Anthropic's adaptive thinking steered by
	// output_config.effort (Claude 4.6 and later).
	ReasoningAdaptive Reasoning = "adaptive"
	// ReasoningLevel: Gemini 3's thinkingLevel.
	ReasoningLevel Reasoning = "level"
)

// Deployment is one way to serve a model: a provider (a configured
// provider's name, or a provider type such as "openai") and the model ID
// that provider knows.
type Deployment struct {
	Provider   string
	UpstreamID string
	// Weight is the deployment's share of its tier's traffic under the
	// weighted strategy; 0 counts as 1.
	Weight int
	// Priority makes tiers: lower is tried first; the default is 0.
	Priority int
	// FirstByteTimeout and Timeout, when non-zero, override the
	// provider's for calls through this deployment.
	FirstByteTimeout time.Duration
	Timeout          time.Duration
}

// Strategy picks among the healthy deployments of one priority tier.
type Strategy string

// The strategies.
const (
	// StrategyWeighted: random, in proportion to the weights (default).
	StrategyWeighted Strategy = "weighted"
	// StrategyLeastBusy: the one with the fewest calls in flight.
	StrategyLeastBusy Strategy = "least-busy"
	// StrategyLatency: the one with the lowest moving average of time to
	// first byte.
	StrategyLatency Strategy = "latency"
)

// Valid reports whether s is a strategy ("" is the default).
func (s Strategy) Valid() bool {
	return s == "" || s == StrategyWeighted || s == StrategyLeastBusy || s == StrategyLatency
}

// Model is one catalogue entry. Models are shared by every reader of a
// Catalog: callers must not modify them.
type Model struct {
	ID     string
	Family string // openai, anthropic, google or meta for built-in models
	// UpstreamID and Provider are the default deployment: for a built-in
	// model the vendor's ID and the provider type that serves it, for a
	// model added by configuration its first deployment.
	UpstreamID string
	Provider   string
	Mode       Mode

	InputPrice  Price
	OutputPrice Price // 0 for embedding models
	// CachedInputPrice is the price of prompt tokens the provider served
	// from its prompt cache (OpenAI's cached_tokens, Anthropic's cache
	// reads, Gemini's cached content); 0 when the catalogue has none.
	// CachedPrice is what applies.
	CachedInputPrice Price
	// LongContext are the prices of a request with a long prompt, when
	// the vendor charges more for one (for all of that request).
	LongContext LongContext

	ContextWindow   int // input tokens; 0 = unknown
	MaxOutputTokens int // 0 = unknown
	Functions       bool
	Vision          bool
	EmbeddingDims   int // default vector size of embedding models
	// Reasoning is how the model's thinking is controlled upstream;
	// ReasoningNone for models that do not think or cannot be steered.
	Reasoning Reasoning
	// StructuredOutputs reports whether the upstream constrains output to
	// a JSON schema natively (Anthropic's output_config.format); OpenAI
	// and Gemini models have their own forms whatever this says.
	StructuredOutputs bool

	Created      time.Time // zero when unknown
	DeprecatedOn time.Time // zero when not deprecated or not known
	SunsetOn     time.Time // zero when no shutdown date is known
	Replacement  string    // the vendor's named successor, if any

	// Deployments serve the model: by priority tier, then by Strategy
	// within a tier. The default is one {Provider, UpstreamID}.
	Deployments []Deployment
	// Strategy picks within a tier; "" is StrategyWeighted.
	Strategy Strategy
	// Fallbacks are the models tried, in order, when every deployment
	// has failed or is cooling down.
	Fallbacks []string
	// ContextWindowFallbacks are the models tried, in order, when the
	// prompt is too long for this one: the first with a larger window
	// answers.
	ContextWindowFallbacks []string
}

// OwnedBy returns the owned_by value of GET /v1/models: the family
// ("openai", "anthropic", "google", "meta"), or for a configured model
// without a family its default provider.
func (m *Model) OwnedBy() string {
	if m.Family != "" {
		return m.Family
	}
	return m.Provider
}

// LongContext holds a model's prices for a request whose prompt is over
// Above tokens; Above is 0 when the model has no such prices.
type LongContext struct {
	Above            int
	InputPrice       Price
	OutputPrice      Price
	CachedInputPrice Price // 0: InputPrice
}

// Prices are the prices that apply to one request: per prompt token, per
// cached prompt token and per completion token.
type Prices struct {
	Input, Cached, Output Price
}

// CachedPrice returns the price of a cached prompt token: the model's
// cache price, or its input price when it has none or a higher one (a
// configured input price may be below the built-in cache price).
func (m *Model) CachedPrice() Price {
	return cachedPrice(m.CachedInputPrice, m.InputPrice)
}

// PricesFor returns the prices of a request with promptTokens prompt
// tokens: the long-context prices when the model has them and the prompt
// is over their threshold, else the base prices.
func (m *Model) PricesFor(promptTokens int64) Prices {
	if lc := m.LongContext; lc.Above > 0 && promptTokens > int64(lc.Above) {
		return Prices{Input: lc.InputPrice, Cached: cachedPrice(lc.CachedInputPrice, lc.InputPrice), Output: lc.OutputPrice}
	}
	return Prices{Input: m.InputPrice, Cached: m.CachedPrice(), Output: m.OutputPrice}
}

func cachedPrice(cached, input Price) Price {
	if cached == 0 || cached > input {
		return input
	}
	return cached
}

// Retired reports whether the model has a sunset date and now is on or
// after it: a retired model is no longer served.
func (m *Model) Retired(now time.Time) bool {
	return !m.SunsetOn.IsZero() && !now.Before(m.SunsetOn)
}

// UnderNotice reports whether the model is still served at now but is
// deprecated (announced on or before now) or has a sunset date ahead.
func (m *Model) UnderNotice(now time.Time) bool {
	if m.Retired(now) {
		return false
	}
	deprecated := !m.DeprecatedOn.IsZero() && !now.Before(m.DeprecatedOn)
	return deprecated || !m.SunsetOn.IsZero()
}
