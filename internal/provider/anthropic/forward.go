package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/envelope"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

var _ provider.Forwarder = (*Client)(nil)

// Forwards reports whether the client serves e natively: Anthropic's own
// Messages API.
func (c *Client) Forwards(e provider.Endpoint) bool { return e == provider.EndpointMessages }

// Forward sends a Messages request as the client wrote it (model and
// foreign reasoning blocks edited in place) and relays the answer, with
// the model the client asked for.
func (c *Client) Forward(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, err := forwardBody(r)
	if err != nil {
		return nil, c.named(err)
	}
	b, h, err := c.up.CallHeader(ctx, c.url(), body, r.RequestID, passedHeader(r))
	if err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(b) {
		return nil, provider.Unreadable(c.opt.Name, errors.New("invalid JSON"))
	}
	root := gjson.ParseBytes(b)
	if root.Get("type").Str == "error" {
		return nil, eventError(c.opt.Name, b)
	}
	if !root.IsObject() {
		return nil, provider.Unreadable(c.opt.Name, errors.New("not a message object"))
	}
	var u usage
	u.read(root.Get("usage"))
	return &provider.Response{Body: r.NameModel(b, "model", root.Get("model")), Usage: u.provider(), Header: h}, nil
}

// passedHeader is what of the client's headers goes upstream unchanged:
// anthropic-beta.
func passedHeader(r *provider.Request) http.Header {
	v := r.Header.Values("Anthropic-Beta")
	if len(v) == 0 {
		return nil
	}
	return http.Header{"Anthropic-Beta": v}
}

// forwardBody is the client's body for the upstream: the upstream's model
// ID, and without the thinking blocks Anthropic would refuse (those whose
// signature is a gateway envelope or empty). r.Body is not modified; it is
// returned as is when there is nothing to edit.
func forwardBody(r *provider.Request) ([]byte, error) {
	body := r.Body
	var err error
	if gjson.GetBytes(body, "model").Str != r.UpstreamModel {
		if body, err = sjson.SetBytes(body, "model", r.UpstreamModel); err != nil { // copies
			return nil, fmt.Errorf("set upstream model: %w", err)
		}
	}
	if !mayCarryForeignThinking(body) {
		return body, nil
	}
	return stripThinking(body)
}

// Markers of a block stripThinking may drop; a body without any is sent
// with no scan.
var (
	markEmptySignature       = []byte(`"signature":""`)
	markEmptySignatureSpaced = []byte(`"signature": ""`)
	markEmptyData            = []byte(`"data":""`)
)

func mayCarryForeignThinking(body []byte) bool {
	return bytes.Contains(body, []byte(envelope.Prefix)) || bytes.Contains(body, markEmptySignature) ||
		bytes.Contains(body, markEmptySignatureSpaced) || bytes.Contains(body, markEmptyData)
}

// stripThinking deletes the thinking blocks whose signature (the redacted
// ones: whose data) is a gateway envelope or empty, last first so that the
// indexes of the others hold.
func stripThinking(body []byte) ([]byte, error) {
	var paths []string
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		m.Get("content").ForEach(func(j, blk gjson.Result) bool {
			if foreignThinking(blk) {
				paths = append(paths, fmt.Sprintf("messages.%d.content.%d", i.Int(), j.Int()))
			}
			return true
		})
		return true
	})
	for k := len(paths) - 1; k >= 0; k-- {
		out, err := sjson.DeleteBytes(body, paths[k]) // copies
		if err != nil {
			return nil, fmt.Errorf("strip thinking block %s: %w", paths[k], err)
		}
		body = out
	}
	return body, nil
}

// foreignThinking reports a thinking block Anthropic did not issue.
func foreignThinking(blk gjson.Result) bool {
	var v gjson.Result
	switch blk.Get("type").Str {
	case "thinking":
		v = blk.Get("signature")
	case "redacted_thinking":
		v = blk.Get("data")
	default:
		return false
	}
	return v.Str == "" || envelope.Is(v.Str)
}
