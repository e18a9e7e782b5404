package anthropic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Options configure a Client.
type Options struct {
	Name    string // configured name
	BaseURL string // host base without /v1, e.g. https://api.anthropic.com
	APIKey  string
	// Timeout bounds a call that is not a stream, and a stream's wait for
	// its response headers. Default 10 minutes.
	Timeout time.Duration
	// Transport defaults to provider.NewTransport().
	Transport http.RoundTripper
}

// Client is one Anthropic Messages API upstream.
type Client struct {
	opt     Options
	hc      *http.Client
	headers http.Header // sent with every request
	now     func() time.Time
}

var (
	_ provider.Chatter  = (*Client)(nil)
	_ provider.Streamer = (*Client)(nil)
)

const (
	// apiVersion is the anthropic-version header every SDK sends.
	apiVersion = "2023-06-01"
	// maxErrorBody bounds how much of an upstream error body is read.
	maxErrorBody = 1 << 20
	// maxResponseBody bounds a non-streamed upstream answer.
	maxResponseBody = 64 << 20
)

// New returns a client for one upstream.
func New(opt Options) *Client {
	if opt.Transport == nil {
		opt.Transport = provider.NewTransport()
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Anthropic-Version", apiVersion)
	if opt.APIKey != "" {
		h.Set("X-Api-Key", opt.APIKey)
	}
	return &Client{opt: opt, hc: &http.Client{Transport: opt.Transport}, headers: h, now: time.Now}
}

// Name returns the configured name.
func (c *Client) Name() string { return c.opt.Name }

// Type returns "anthropic".
func (c *Client) Type() string { return "anthropic" }

// post sends body to /v1/messages and returns the response when the status
// is 200; otherwise the classified error. The caller closes the body.
func (c *Client) post(ctx context.Context, r *provider.Request, body []byte, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opt.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, &provider.Error{Provider: c.opt.Name, Kind: provider.KindUnavailable, Err: err}
	}
	req.Header = c.headers.Clone()
	req.Header.Set("Accept", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if r.RequestID != "" {
		req.Header.Set("X-Request-Id", r.RequestID)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, provider.FromTransport(ctx, c.opt.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, statusError(c.opt.Name, resp.StatusCode, resp.Header, b)
	}
	return resp, nil
}

// call posts body and reads the whole answer, bounded by the timeout.
func (c *Client) call(ctx context.Context, r *provider.Request, body []byte) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	resp, err := c.post(ctx, r, body, false)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		return nil, nil, provider.FromTransport(ctx, c.opt.Name, err)
	}
	return b, resp.Header, nil
}

// named sets the provider name on an Error made before the client was
// known (the request translation's refusals).
func (c *Client) named(err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Provider == "" {
		pe.Provider = c.opt.Name
	}
	return err
}
