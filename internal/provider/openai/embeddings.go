package openai

import (
	"context"
	"errors"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Embed answers an embeddings request. The encoding the client asked for is
// forwarded; the gateway converts if the upstream ignored it.
func (c *Client) Embed(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, err := withModel(r)
	if err != nil {
		return nil, err
	}
	b, h, err := c.call(ctx, r, "/embeddings", body)
	if err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(b) {
		return nil, provider.Unreadable(c.opt.Name, errors.New("invalid JSON"))
	}
	u := gjson.GetBytes(b, "usage")
	usage := provider.Usage{PromptTokens: int(u.Get("prompt_tokens").Int()), TotalTokens: int(u.Get("total_tokens").Int())}
	if !u.IsObject() {
		usage = estimateInput(r)
	}
	return &provider.Response{Body: clientModel(r, b), Usage: usage, Header: h}, nil
}
