// Package openai talks to OpenAI and to the OpenAI-compatible hosts that
// serve Meta-family models (Together, Groq, Fireworks, DeepInfra, vLLM,
// Ollama, llama.cpp): it forwards the client's body with only the model ID
// and stream options edited and the gateway's reasoning extension taken
// out of the messages (reasoning_content and thinking_blocks, which hold
// other upstreams' thinking), and passes the answer back, a host's own
// reasoning_content included. reasoning_effort goes as the client sent it;
// usage's completion_tokens_details.reasoning_tokens is read into
// provider.Usage.ReasoningTokens.
package openai

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Options configure a Client.
type Options struct {
	Name    string // configured name
	Type    string // openai, together, groq, fireworks, deepinfra, openai_compatible
	BaseURL string // up to, not including, /chat/completions
	APIKey  string
	Headers map[string]string
	// Timeout bounds a whole call, a stream included. Default 10 minutes.
	Timeout time.Duration
	// FirstByteTimeout bounds a stream's wait for its response headers.
	// Default: Timeout.
	FirstByteTimeout time.Duration
	// ConnectTimeout bounds opening a connection when Transport is nil.
	// Default provider.DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// StreamIdleTimeout bounds each wait for more of a started stream;
	// past it the stream ends with a timeout error. 0: no bound.
	StreamIdleTimeout time.Duration
	// TranslateFunctions turns legacy functions into tools for hosts
	// that only know tools, and the answers back.
	TranslateFunctions bool
	// Transport defaults to provider.NewTransport(ConnectTimeout).
	Transport http.RoundTripper
}

// Client is one OpenAI-compatible upstream.
type Client struct {
	opt Options
	up  provider.Upstream
	// chatURL is BaseURL+chatPath, made once: most calls are chats.
	chatURL string
}

const chatPath = "/chat/completions"

var (
	_ provider.Timeouter = (*Client)(nil)
	_ provider.Prober    = (*Client)(nil)
	_ provider.Chatter   = (*Client)(nil)
	_ provider.Streamer  = (*Client)(nil)
	_ provider.Completer = (*Client)(nil)
	_ provider.Embedder  = (*Client)(nil)
)

// New returns a client for one upstream.
func New(opt Options) *Client {
	if opt.Transport == nil {
		opt.Transport = provider.NewTransport(opt.ConnectTimeout)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if opt.APIKey != "" {
		h.Set("Authorization", "Bearer "+opt.APIKey)
	}
	for k, v := range opt.Headers {
		h.Set(k, v)
	}
	return &Client{opt: opt, chatURL: opt.BaseURL + chatPath, up: provider.Upstream{
		Name: opt.Name, Client: &http.Client{Transport: opt.Transport}, Header: h, Timeout: opt.Timeout, IdleTimeout: opt.StreamIdleTimeout,
		FirstByteTimeout: opt.FirstByteTimeout, ConnectTimeout: opt.ConnectTimeout,
	}}
}

// Probe lists the upstream's models, to check its base URL and key.
func (c *Client) Probe(ctx context.Context) error { return c.up.Probe(ctx, c.opt.BaseURL+"/models") }

// Name returns the configured name.
func (c *Client) Name() string { return c.opt.Name }

// Timeouts returns the bounds of the client's calls.
func (c *Client) Timeouts() provider.Timeouts { return c.up.Timeouts() }

// Type returns the provider type.
func (c *Client) Type() string { return c.opt.Type }

// call posts body to path and reads the whole answer.
func (c *Client) call(ctx context.Context, r *provider.Request, path string, body []byte) ([]byte, http.Header, error) {
	return c.up.Call(ctx, c.url(path), body, r.RequestID)
}

// url returns the URL of path on the upstream.
func (c *Client) url(path string) string {
	if path == chatPath {
		return c.chatURL
	}
	return c.opt.BaseURL + path
}

// withModel returns body with "model" set to the upstream ID, copying only
// when it differs.
func withModel(r *provider.Request) ([]byte, error) {
	if r.Model == r.UpstreamModel {
		return r.Body, nil
	}
	b, err := sjson.SetBytes(r.Body, "model", r.UpstreamModel) // copies; r.Body is untouched
	if err != nil {
		return nil, fmt.Errorf("set upstream model: %w", err)
	}
	return b, nil
}

// clientModel rewrites "model" in an answer to the ID the client asked for
// when the upstream knows the model by another ID (Meta models on hosts).
func clientModel(r *provider.Request, b []byte) []byte {
	if r.Model == r.UpstreamModel {
		return b
	}
	out, err := sjson.SetBytes(b, "model", r.Model)
	if err != nil {
		return b
	}
	return out
}
