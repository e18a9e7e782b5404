package anthropic

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// ForwardStream streams a Messages request sent as the client wrote it
// (see Forward): Next returns each upstream event's data JSON, pings
// included, with the model rewritten in message_start when the client
// asked for another ID.
func (c *Client) ForwardStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	body, err := forwardBody(r)
	if err != nil {
		return nil, c.named(err)
	}
	resp, cancel, err := c.up.OpenHeader(ctx, c.url(), body, r.RequestID, passedHeader(r))
	if err != nil {
		return nil, err
	}
	return &relay{ctx: resp.Request.Context(), cancel: cancel, body: resp.Body, rd: sse.NewReader(resp.Body, 0),
		name: c.opt.Name, r: r}, nil
}

var _ provider.Awaiter = (*relay)(nil)

// relay passes an upstream Messages stream on event by event, reading
// the usage as it goes.
type relay struct {
	ctx     context.Context
	cancel  context.CancelFunc
	body    io.ReadCloser
	rd      *sse.Reader
	name    string
	r       *provider.Request
	usage   usage
	delta   bool // message_delta came: the output count is final
	stopped bool // message_stop came
	err     error
	sent    tokens.Text // what the deltas said, for a cut stream's usage
}

// Next returns the next event's data JSON; io.EOF after message_stop. An
// upstream error event, or a body that ends before message_stop, is a
// *provider.Error, returned again on later calls.
func (s *relay) Next() ([]byte, error) {
	for s.err == nil {
		if s.stopped {
			return nil, io.EOF
		}
		ev, err := s.rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			s.err = &provider.Error{Provider: s.name, Kind: provider.KindUnavailable,
				Message: "The upstream stream ended before the answer was complete.",
				Err:     errors.New("upstream stream ended before message_stop")}
		case err != nil:
			s.err = provider.FromTransport(s.ctx, s.name, err)
		case len(ev.Data) > 0:
			return s.event(ev.Event, ev.Data)
		}
	}
	return nil, s.err
}

// Await waits for the upstream's next bytes when Next would
// (provider.Awaiter).
func (s *relay) Await() {
	if s.err == nil && !s.stopped {
		s.rd.Await()
	}
}

// event reads one event's usage and returns its data for the client.
func (s *relay) event(name string, data []byte) ([]byte, error) {
	if !gjson.ValidBytes(data) {
		s.err = provider.Unreadable(s.name, errors.New("invalid JSON in stream event "+strconv.Quote(name)))
		return nil, s.err
	}
	root := gjson.ParseBytes(data)
	switch root.Get("type").Str {
	case "message_start":
		msg := root.Get("message")
		s.usage.read(msg.Get("usage"))
		return s.r.NameModel(data, "message.model", msg.Get("model")), nil
	case "content_block_delta":
		d := root.Get("delta")
		s.sent.Add(d.Get("text").Str)
		s.sent.Add(d.Get("thinking").Str)
		s.sent.Add(d.Get("partial_json").Str)
	case "message_delta":
		s.usage.read(root.Get("usage"))
		s.delta = true
	case "message_stop":
		s.stopped = true
	case "error":
		s.err = eventError(s.name, data)
		return nil, s.err
	}
	return data, nil
}

// Usage is the upstream's once message_delta has given the final output
// count; before that (a cut stream) the larger of what the upstream
// reported and the gateway's count of what was relayed, flagged as an
// estimate.
func (s *relay) Usage() provider.Usage {
	u := s.usage.provider()
	if s.delta {
		return u
	}
	u.CompletionTokens = max(u.CompletionTokens, s.sent.Count(s.r.Model))
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.Estimated = true
	return u
}

// Close releases the upstream connection; after a complete stream the
// rest of the body is read so the connection goes back to the pool.
func (s *relay) Close() error {
	s.rd.Close()
	if s.stopped && s.err == nil {
		io.CopyN(io.Discard, s.body, 64<<10)
	}
	err := s.body.Close()
	s.cancel()
	return err
}
