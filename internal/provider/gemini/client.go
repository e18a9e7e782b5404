package gemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
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
	// Timeout bounds a call that is not a stream, and a stream's wait for
	// its response headers. Default 10 minutes.
	Timeout time.Duration
	// Transport defaults to provider.NewTransport().
	Transport http.RoundTripper
}

// Client is one Gemini API upstream.
type Client struct {
	opt Options
	hc  *http.Client
	env env
}

var (
	_ provider.Chatter  = (*Client)(nil)
	_ provider.Streamer = (*Client)(nil)
	_ provider.Embedder = (*Client)(nil)
)

// env is what a translation takes from outside: the clock and random
// text for IDs. Tests make both deterministic.
type env struct {
	now  func() time.Time
	rand func() string // at least 12 characters of [A-Z2-7]
}

var realEnv = env{now: time.Now, rand: rand.Text}

const (
	// maxErrorBody bounds how much of an upstream error body is read.
	maxErrorBody = 1 << 20
	// maxResponseBody bounds a non-streamed upstream answer.
	maxResponseBody = 64 << 20
	apiVersion      = "/v1beta"
)

// New returns a client for one Gemini API upstream.
func New(opt Options) *Client {
	if opt.Transport == nil {
		opt.Transport = provider.NewTransport()
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	return &Client{opt: opt, hc: &http.Client{Transport: opt.Transport}, env: realEnv}
}

// Name returns the configured name.
func (c *Client) Name() string { return c.opt.Name }

// Type returns "gemini".
func (c *Client) Type() string { return "gemini" }

// endpoint is the URL of a model's method, e.g. generateContent.
func (c *Client) endpoint(model, method string) string {
	model = strings.TrimPrefix(model, "models/")
	return c.opt.BaseURL + apiVersion + "/models/" + url.PathEscape(model) + ":" + method
}

// post sends body and returns the response when the status is 200;
// otherwise the classified error. The caller closes the body.
func (c *Client) post(ctx context.Context, u string, body []byte, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &provider.Error{Provider: c.opt.Name, Kind: provider.KindUnavailable, Err: fmt.Errorf("build request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", c.opt.APIKey)
	if stream {
		req.Header.Set("Accept", "text/event-stream")
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
func (c *Client) call(ctx context.Context, u string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	resp, err := c.post(ctx, u, body, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		return nil, provider.FromTransport(ctx, c.opt.Name, err)
	}
	return b, nil
}

// open starts a stream. The timeout bounds only the wait for the response
// headers; the stream then lasts as long as ctx.
func (c *Client) open(ctx context.Context, u string, body []byte) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(c.opt.Timeout, cancel)
	resp, err := c.post(ctx, u, body, true)
	if !timer.Stop() { // fired: no headers within the timeout
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		return nil, nil, &provider.Error{Provider: c.opt.Name, Kind: provider.KindTimeout, Err: context.DeadlineExceeded}
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// badAnswer is an upstream answer the adapter cannot read.
func badAnswer(name string, err error) error {
	return &provider.Error{Provider: name, Kind: provider.KindUnavailable, Err: fmt.Errorf("unreadable upstream answer: %w", err)}
}

var errNotJSON = errors.New("invalid JSON")
