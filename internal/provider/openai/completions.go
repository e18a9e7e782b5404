package openai

import (
	"context"
	"errors"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Complete answers a legacy completion on a model with a native
// /completions endpoint.
func (c *Client) Complete(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, err := withModel(r)
	if err != nil {
		return nil, err
	}
	b, h, err := c.call(ctx, r, "/completions", body)
	if err != nil {
		return nil, err
	}
	us, err := answerUsage(r, b)
	if err != nil {
		return nil, provider.Unreadable(c.opt.Name, errors.New("invalid JSON"))
	}
	return &provider.Response{Body: clientModel(r, b), Usage: us, Header: h}, nil
}

// CompleteStream streams a legacy completion.
func (c *Client) CompleteStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	body, err := withModel(r)
	if err == nil {
		body, err = askUsage(body)
	}
	if err != nil {
		return nil, err
	}
	return c.stream(ctx, r, "/completions", body, false)
}
