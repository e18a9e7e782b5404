package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Provider types.
const (
	TypeOpenAI           = "openai"
	TypeAnthropic        = "anthropic"
	TypeGemini           = "gemini"
	TypeTogether         = "together"
	TypeGroq             = "groq"
	TypeFireworks        = "fireworks"
	TypeDeepInfra        = "deepinfra"
	TypeOpenAICompatible = "openai_compatible"
	TypeMock             = "mock"
)

// DefaultBaseURLs are the official base URLs of each provider type, in each
// SDK's convention (DESIGN.md, "Operator interface").
var DefaultBaseURLs = map[string]string{
	TypeOpenAI:    "https://api.openai.com/v1",
	TypeAnthropic: "https://api.anthropic.com",
	TypeGemini:    "https://generativelanguage.googleapis.com",
	TypeTogether:  "https://api.together.xyz/v1",
	TypeGroq:      "https://api.groq.com/openai/v1",
	TypeFireworks: "https://api.fireworks.ai/inference/v1",
	TypeDeepInfra: "https://api.deepinfra.com/v1/openai",
}

// envPrefixes maps provider types enabled from the environment to their
// variable prefix: OPENAI_API_KEY / OPENAI_BASE_URL and so on.
var envPrefixes = []struct{ typ, prefix string }{
	{TypeOpenAI, "OPENAI"},
	{TypeAnthropic, "ANTHROPIC"},
	{TypeGemini, "GEMINI"},
	{TypeTogether, "TOGETHER"},
	{TypeGroq, "GROQ"},
	{TypeFireworks, "FIREWORKS"},
	{TypeDeepInfra, "DEEPINFRA"},
}

// Provider is one configured upstream.
type Provider struct {
	// Name identifies the provider in deployments and logs. Default: the type.
	Name string `yaml:"name"`
	// Type is openai, anthropic, gemini, together, groq, fireworks,
	// deepinfra, openai_compatible or mock.
	Type string `yaml:"type"`
	// BaseURL defaults to the type's official URL; required for
	// openai_compatible.
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the upstream key
	// (preferred over APIKey, which puts a secret in the file).
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKey is the upstream key itself; when APIKeyEnv is set, Load
	// replaces it with that variable's value.
	APIKey string `yaml:"api_key"`
	// ConnectTimeout bounds opening a connection to the upstream (the
	// TCP dial). Default 10s.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// FirstByteTimeout bounds the wait for a stream to begin; past it
	// the attempt fails and may be retried on another deployment. A call
	// that is not streamed gets its answer at once and is bounded by
	// Timeout alone. At most Timeout. Default: Timeout.
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"`
	// Timeout bounds one whole upstream call, a stream included.
	// Default 10m.
	Timeout time.Duration `yaml:"timeout"`
	// StreamIdleTimeout bounds each wait for more of a stream that has
	// started; past it the client's stream ends with an error event and
	// the usage so far is recorded. Default 2m.
	StreamIdleTimeout time.Duration `yaml:"stream_idle_timeout"`
	// Headers are sent with every upstream request (e.g.
	// OpenAI-Organization).
	Headers map[string]string `yaml:"headers"`
	// Functions is "native" (the host accepts legacy functions) or
	// "translate" (the gateway turns functions into tools and back).
	// Default native for openai and mock, translate for the others.
	Functions string `yaml:"functions"`
	// Models, for openai_compatible providers, lists the model IDs the
	// host serves that are not in the catalogue (added as chat models).
	Models []string `yaml:"models"`
}

// ModelEntry adds a model to the catalogue, or changes a built-in one.
// Deployments, Strategy, Fallbacks and ContextWindowFallbacks, when set,
// replace a built-in model's.
type ModelEntry struct {
	ID                  string            `yaml:"id"`
	Family              string            `yaml:"family"`
	Mode                string            `yaml:"mode"`
	InputUSDPerMtok     string            `yaml:"input_usd_per_mtok"`
	OutputUSDPerMtok    string            `yaml:"output_usd_per_mtok"`
	CachedUSDPerMtok    string            `yaml:"cached_input_usd_per_mtok"`
	ContextWindow       int               `yaml:"context_window"`
	MaxOutputTokens     int               `yaml:"max_output_tokens"`
	Functions           bool              `yaml:"functions"`
	Vision              bool              `yaml:"vision"`
	EmbeddingDimensions int               `yaml:"embedding_dimensions"`
	Deployments         []DeploymentEntry `yaml:"deployments"`
	// Strategy picks among the usable deployments of one priority tier:
	// weighted (random in proportion to the weights), least-busy (fewest
	// calls in flight) or latency (lowest moving average of time to first
	// byte). Default weighted.
	Strategy string `yaml:"strategy"`
	// Fallbacks are catalogue model IDs tried in order when every
	// deployment of this model has failed or is cooling down. Default none.
	Fallbacks []string `yaml:"fallbacks"`
	// ContextWindowFallbacks are catalogue model IDs tried in order when
	// a prompt is too long for this model: the first with a larger
	// context window answers. Default none.
	ContextWindowFallbacks []string `yaml:"context_window_fallbacks"`
}

// DeploymentEntry serves a model through a provider (by name, or by type).
type DeploymentEntry struct {
	Provider   string `yaml:"provider"`
	UpstreamID string `yaml:"upstream_id"`
	// Weight is the deployment's share of its tier's traffic under the
	// weighted strategy, relative to the others'; 0 or more. Default 1.
	Weight int `yaml:"weight"`
	// Priority makes tiers: deployments with the lowest priority are
	// tried first, the next tier only when none of them is usable.
	// Default 0.
	Priority int `yaml:"priority"`
	// FirstByteTimeout and Timeout, when set, replace the provider's
	// first_byte_timeout and timeout for calls through this deployment.
	// Default: the provider's.
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"`
	Timeout          time.Duration `yaml:"timeout"`
}

// setDefaults gives a deployment read from the file its defaults before
// its keys are decoded, so that an explicit weight: 0 stays 0.
func (d *DeploymentEntry) setDefaults() { d.Weight = 1 }

// resolveKeys reads each provider's key from the variable it names.
func resolveKeys(c *Config, getenv func(string) string) {
	for i := range c.Providers {
		if p := &c.Providers[i]; p.APIKeyEnv != "" {
			p.APIKey = getenv(p.APIKeyEnv)
		}
	}
}

// providersFromEnv adds a provider for each type whose *_API_KEY or
// *_BASE_URL variable is set, unless the file already names one so.
func providersFromEnv(c *Config, getenv func(string) string) {
	for _, e := range envPrefixes {
		key, base := getenv(e.prefix+"_API_KEY"), getenv(e.prefix+"_BASE_URL")
		if key == "" && base == "" {
			continue
		}
		if i := c.providerIndex(e.typ); i >= 0 {
			// The file configures it; the variables fill what it left out.
			p := &c.Providers[i]
			if p.BaseURL == "" {
				p.BaseURL = base
			}
			if p.APIKey == "" && p.APIKeyEnv == "" {
				p.APIKeyEnv = e.prefix + "_API_KEY"
			}
			continue
		}
		c.Providers = append(c.Providers, Provider{Name: e.typ, Type: e.typ, BaseURL: base, APIKeyEnv: e.prefix + "_API_KEY"})
	}
}

func (c *Config) providerIndex(name string) int {
	for i, p := range c.Providers {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// fillProviderDefaults completes each provider from its type.
func fillProviderDefaults(c *Config) {
	for i := range c.Providers {
		p := &c.Providers[i]
		if p.Name == "" {
			p.Name = p.Type
		}
		if p.BaseURL == "" {
			p.BaseURL = DefaultBaseURLs[p.Type]
		}
		p.BaseURL = strings.TrimRight(p.BaseURL, "/")
		if p.Timeout == 0 {
			p.Timeout = 10 * time.Minute
		}
		if p.ConnectTimeout == 0 {
			p.ConnectTimeout = 10 * time.Second
		}
		if p.FirstByteTimeout == 0 {
			p.FirstByteTimeout = p.Timeout
		}
		if p.StreamIdleTimeout == 0 {
			p.StreamIdleTimeout = 2 * time.Minute
		}
		if p.Functions == "" {
			p.Functions = "translate"
			if p.Type == TypeOpenAI || p.Type == TypeMock {
				p.Functions = "native"
			}
		}
	}
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validateProviders checks the provider list.
func (c *Config) validateProviders() error {
	seen := map[string]bool{}
	for i, p := range c.Providers {
		key := fmt.Sprintf("providers[%d]", i)
		switch p.Type {
		case TypeOpenAI, TypeAnthropic, TypeGemini, TypeTogether, TypeGroq, TypeFireworks,
			TypeDeepInfra, TypeOpenAICompatible, TypeMock:
		default:
			return fmt.Errorf("%s.type: expected one of openai, anthropic, gemini, together, groq, fireworks, deepinfra, openai_compatible, mock, got %q", key, p.Type)
		}
		if !namePattern.MatchString(p.Name) {
			return fmt.Errorf("%s.name: expected letters, digits, '.', '_' or '-', got %q", key, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("%s.name: %q is used by two providers", key, p.Name)
		}
		seen[p.Name] = true
		if p.Type != TypeMock {
			u, err := url.Parse(p.BaseURL)
			if p.BaseURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%s.base_url: expected an http(s) URL such as https://api.example.com/v1", key)
			}
		}
		if p.Timeout < 0 {
			return fmt.Errorf("%s.timeout: expected a positive duration such as \"10m\"", key)
		}
		if p.ConnectTimeout < 0 {
			return fmt.Errorf("%s.connect_timeout: expected a positive duration such as \"10s\"", key)
		}
		if p.FirstByteTimeout < 0 || p.FirstByteTimeout > p.Timeout {
			return fmt.Errorf("%s.first_byte_timeout: expected a positive duration of at most timeout (%s), got %s", key, p.Timeout, p.FirstByteTimeout)
		}
		if p.StreamIdleTimeout < 0 {
			return fmt.Errorf("%s.stream_idle_timeout: expected a positive duration such as \"2m\"", key)
		}
		if p.Functions != "native" && p.Functions != "translate" {
			return fmt.Errorf("%s.functions: expected native or translate, got %q", key, p.Functions)
		}
	}
	return nil
}
