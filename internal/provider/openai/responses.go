package openai

import (
	"context"
	"errors"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

var _ provider.Forwarder = (*Client)(nil)

// Forwards reports whether the client serves e natively: the Responses
// API, for OpenAI itself only (the OpenAI-compatible hosts do not serve
// /v1/responses reliably).
func (c *Client) Forwards(e provider.Endpoint) bool {
	return e == provider.EndpointResponses && c.opt.Type == "openai"
}

// Forward sends a Responses request as the client wrote it (model edited
// in place) and relays the answer, with the model the client asked for.
func (c *Client) Forward(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, err := withModel(r)
	if err != nil {
		return nil, err
	}
	b, h, err := c.call(ctx, r, "/responses", body)
	if err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(b) {
		return nil, provider.Unreadable(c.opt.Name, errors.New("invalid JSON"))
	}
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return nil, provider.Unreadable(c.opt.Name, errors.New("not a response object"))
	}
	u, ok := responsesUsage(root.Get("usage"))
	if !ok {
		u = estimateResponses(r, outputText(root.Get("output")))
	}
	return &provider.Response{Body: r.NameModel(b, "model", root.Get("model")), Usage: u, Header: h}, nil
}

// responsesUsage reads a Responses usage object; false when there is none.
func responsesUsage(u gjson.Result) (provider.Usage, bool) {
	if !u.IsObject() {
		return provider.Usage{}, false
	}
	out := provider.Usage{
		PromptTokens:     int(u.Get("input_tokens").Int()),
		CompletionTokens: int(u.Get("output_tokens").Int()),
		TotalTokens:      int(u.Get("total_tokens").Int()),
		CachedTokens:     int(u.Get("input_tokens_details.cached_tokens").Int()),
		ReasoningTokens:  int(u.Get("output_tokens_details.reasoning_tokens").Int()),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	return out, true
}

// outputText collects the text and call arguments of output items.
func outputText(output gjson.Result) *tokens.Text {
	t := &tokens.Text{}
	output.ForEach(func(_, item gjson.Result) bool {
		t.Add(item.Get("arguments").Str)
		item.Get("content").ForEach(func(_, p gjson.Result) bool {
			t.Add(p.Get("text").Str)
			return true
		})
		return true
	})
	return t
}

// estimateResponses counts a Responses request's usage with the
// tokenizer, for an answer that reports none (a stream cut short): the
// instructions and the text of the input items, and answer.
func estimateResponses(r *provider.Request, answer *tokens.Text) provider.Usage {
	var b strings.Builder
	b.WriteString(gjson.GetBytes(r.Body, "instructions").Str)
	input := gjson.GetBytes(r.Body, "input")
	if input.Type == gjson.String {
		b.WriteString(input.Str)
	}
	input.ForEach(func(_, item gjson.Result) bool {
		b.WriteByte('\n')
		for _, k := range [...]string{"arguments", "output"} {
			b.WriteString(item.Get(k).String())
		}
		if c := item.Get("content"); c.Type == gjson.String {
			b.WriteString(c.Str)
		}
		item.Get("content").ForEach(func(_, p gjson.Result) bool {
			b.WriteString(p.Get("text").Str)
			return true
		})
		return true
	})
	u := provider.Usage{
		PromptTokens:     tokens.Count(r.Model, b.String()),
		CompletionTokens: answer.Count(r.Model),
		Estimated:        true,
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}
