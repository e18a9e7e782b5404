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

// Deployment is one way to serve a model: a provider (a configured
// provider's name, or a provider type such as "openai") and the model ID
// that provider knows.
type Deployment struct {
	Provider   string
	UpstreamID string
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

	ContextWindow   int // input tokens; 0 = unknown
	MaxOutputTokens int // 0 = unknown
	Functions       bool
	Vision          bool
	EmbeddingDims   int // default vector size of embedding models

	Created      time.Time // zero when unknown
	DeprecatedOn time.Time // zero when not deprecated or not known
	SunsetOn     time.Time // zero when no shutdown date is known
	Replacement  string    // the vendor's named successor, if any

	// Deployments are tried in order; the default is one
	// {Provider, UpstreamID}.
	Deployments []Deployment
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

// CachedPrice returns the price of a cached prompt token: the model's
// cache price, or its input price when it has none or a higher one (a
// configured input price may be below the built-in cache price).
func (m *Model) CachedPrice() Price {
	if m.CachedInputPrice == 0 || m.CachedInputPrice > m.InputPrice {
		return m.InputPrice
	}
	return m.CachedInputPrice
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
