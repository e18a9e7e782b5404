package gemini

import (
	"context"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Chat answers a chat completion with :generateContent.
func (c *Client) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	req, err := translateChat(r)
	if err != nil {
		return nil, owned(c.opt.Name, err)
	}
	b, err := c.call(ctx, c.endpoint(r.UpstreamModel, "generateContent"), req.body)
	if err != nil {
		return nil, err
	}
	t := newTranslator(c.opt.Name, r, req, c.env)
	out, u, err := t.chatResponse(b)
	if err != nil {
		return nil, err
	}
	return &provider.Response{Body: out, Usage: u}, nil
}

// ChatStream streams a chat completion with
// :streamGenerateContent?alt=sse.
func (c *Client) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	req, err := translateChat(r)
	if err != nil {
		return nil, owned(c.opt.Name, err)
	}
	resp, cancel, err := c.up.Open(ctx, c.endpoint(r.UpstreamModel, "streamGenerateContent")+"?alt=sse", req.body, "")
	if err != nil {
		return nil, err
	}
	t := newTranslator(c.opt.Name, r, req, c.env)
	return newStream(t, resp.Request.Context(), resp.Body, cancel), nil
}
