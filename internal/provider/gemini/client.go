package gemini

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Options configure a Client.
type Options struct {
	Name string // configured name
	// BaseURL is the host without the API version, e.g.
	// https://generativelanguage.googleapis.com.
	BaseURL string
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

// Client is one Gemini API upstream.
type Client struct {
	opt Options
	up  provider.Upstream
	env env
}

var (
	_ provider.Timeouter = (*Client)(nil)
	_ provider.Prober    = (*Client)(nil)
	_ provider.Chatter   = (*Client)(nil)
	_ provider.Streamer  = (*Client)(nil)
	_ provider.Embedder  = (*Client)(nil)
)

// env is what a translation takes from outside: the clock and random
// text for IDs. Tests make both deterministic.
type env struct {
	now  func() time.Time
	rand func() string // at least 12 characters of [A-Z2-7]
}

var realEnv = env{now: time.Now, rand: rand.Text}

const (
	apiVersion = "/v1beta"
)

// New returns a client for one Gemini API upstream.
func New(opt Options) *Client {
	if opt.Transport == nil {
		opt.Transport = provider.NewTransport(opt.ConnectTimeout)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Goog-Api-Key", opt.APIKey)
	classify := func(name string, status int, hd http.Header, body []byte) error {
		return statusError(name, status, hd, body)
	}
	return &Client{opt: opt, env: realEnv, up: provider.Upstream{
		Name: opt.Name, Client: &http.Client{Transport: opt.Transport}, Header: h, Timeout: opt.Timeout, IdleTimeout: opt.StreamIdleTimeout,
		FirstByteTimeout: opt.FirstByteTimeout, ConnectTimeout: opt.ConnectTimeout, Classify: classify,
	}}
}

// Probe lists the upstream's models, to check its base URL and key.
func (c *Client) Probe(ctx context.Context) error {
	return c.up.Probe(ctx, c.opt.BaseURL+apiVersion+"/models")
}

// Name returns the configured name.
func (c *Client) Name() string { return c.opt.Name }

// Timeouts returns the bounds of the client's calls.
func (c *Client) Timeouts() provider.Timeouts { return c.up.Timeouts() }

// Type returns "gemini".
func (c *Client) Type() string { return "gemini" }

// endpoint is the URL of a model's method, e.g. generateContent.
func (c *Client) endpoint(model, method string) string {
	model = strings.TrimPrefix(model, "models/")
	return c.opt.BaseURL + apiVersion + "/models/" + url.PathEscape(model) + ":" + method
}

// call posts body to u and reads the whole answer.
func (c *Client) call(ctx context.Context, u string, body []byte) ([]byte, error) {
	b, _, err := c.up.Call(ctx, u, body, "")
	return b, err
}

var errNotJSON = errors.New("invalid JSON")
