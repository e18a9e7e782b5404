package anthropic

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Options configure a Client.
type Options struct {
	Name    string // configured name
	BaseURL string // host base without /v1, e.g. https://api.anthropic.com
	APIKey  string
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
	// Transport defaults to provider.NewTransport(ConnectTimeout).
	Transport http.RoundTripper
}

// Client is one Anthropic Messages API upstream.
type Client struct {
	opt Options
	up  provider.Upstream
	now func() time.Time
}

var (
	_ provider.Timeouter = (*Client)(nil)
	_ provider.Prober    = (*Client)(nil)
	_ provider.Chatter   = (*Client)(nil)
	_ provider.Streamer  = (*Client)(nil)
)

const (
	// apiVersion is the anthropic-version header every SDK sends.
	apiVersion = "2023-06-01"
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
	h.Set("Anthropic-Version", apiVersion)
	h.Set("Accept", "application/json")
	if opt.APIKey != "" {
		h.Set("X-Api-Key", opt.APIKey)
	}
	return &Client{opt: opt, now: time.Now, up: provider.Upstream{
		Name: opt.Name, Client: &http.Client{Transport: opt.Transport}, Header: h, Timeout: opt.Timeout, IdleTimeout: opt.StreamIdleTimeout,
		FirstByteTimeout: opt.FirstByteTimeout, ConnectTimeout: opt.ConnectTimeout, Classify: statusError,
	}}
}

// Probe lists the upstream's models, to check its base URL and key.
func (c *Client) Probe(ctx context.Context) error { return c.up.Probe(ctx, c.opt.BaseURL+"/v1/models") }

// Name returns the configured name.
func (c *Client) Name() string { return c.opt.Name }

// Timeouts returns the bounds of the client's calls.
func (c *Client) Timeouts() provider.Timeouts { return c.up.Timeouts() }

// Type returns "anthropic".
func (c *Client) Type() string { return "anthropic" }

// url is the Messages API endpoint.
func (c *Client) url() string { return c.opt.BaseURL + "/v1/messages" }

// named sets the provider name on an Error made before the client was
// known (the request translation's refusals).
func (c *Client) named(err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Provider == "" {
		pe.Provider = c.opt.Name
	}
	return err
}
