package openai

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// ForwardStream streams a Responses request sent as the client wrote it
// (see Forward): Next returns each upstream event's data JSON, with the
// model of the events that carry the response rewritten when the client
// asked for another ID.
func (c *Client) ForwardStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	body, err := withModel(r)
	if err != nil {
		return nil, err
	}
	resp, cancel, err := c.up.Open(ctx, c.opt.BaseURL+"/responses", body, r.RequestID)
	if err != nil {
		return nil, err
	}
	return &relay{resp: resp, cancel: cancel, rd: sse.NewReader(resp.Body, 0), name: c.opt.Name, r: r}, nil
}

var _ provider.Awaiter = (*relay)(nil)

// relay passes an upstream Responses stream on event by event, taking
// the usage from its terminal event.
type relay struct {
	resp     *http.Response
	cancel   context.CancelFunc
	rd       *sse.Reader
	name     string
	r        *provider.Request
	usage    provider.Usage
	gotUsage bool
	done     bool // the terminal event went by
	err      error
	sent     tokens.Text // what the deltas said, for a cut stream's usage
}

// Next returns the next event's data JSON; io.EOF after the terminal
// response.completed or response.incomplete. An error event or
// response.failed, or a body that ends before the terminal event, is a
// *provider.Error, returned again on later calls.
func (s *relay) Next() ([]byte, error) {
	for s.err == nil {
		if s.done {
			return nil, io.EOF
		}
		ev, err := s.rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			s.err = &provider.Error{Provider: s.name, Kind: provider.KindUnavailable,
				Message: "The upstream stream ended before the response was complete.",
				Err:     errors.New("upstream stream ended before response.completed")}
		case err != nil:
			s.err = provider.FromTransport(s.resp.Request.Context(), s.name, err)
		case len(ev.Data) > 0 && string(ev.Data) != "[DONE]":
			return s.event(ev.Data)
		}
	}
	return nil, s.err
}

// Await waits for the upstream's next bytes when Next would
// (provider.Awaiter).
func (s *relay) Await() {
	if s.err == nil && !s.done {
		s.rd.Await()
	}
}

// event reads one event and returns its data for the client.
func (s *relay) event(data []byte) ([]byte, error) {
	if !gjson.ValidBytes(data) {
		s.err = provider.Unreadable(s.name, errors.New("invalid JSON in stream"))
		return nil, s.err
	}
	typ := gjson.GetBytes(data, "type").Str
	switch typ {
	case "response.output_text.delta", "response.function_call_arguments.delta",
		"response.reasoning_summary_text.delta", "response.refusal.delta":
		s.sent.Add(gjson.GetBytes(data, "delta").Str)
		return data, nil
	case "error":
		s.err = responsesError(s.name, data, gjson.GetBytes(data, "error"))
		return nil, s.err
	case "response.failed":
		s.err = responsesError(s.name, data, gjson.GetBytes(data, "response.error"))
		return nil, s.err
	case "response.completed", "response.incomplete":
		s.usage, s.gotUsage = responsesUsage(gjson.GetBytes(data, "response.usage"))
		s.done = true
	case "response.created", "response.in_progress", "response.queued":
	default:
		return data, nil
	}
	return s.r.NameModel(data, "response.model", gjson.GetBytes(data, "response.model")), nil
}

// responsesKinds maps the codes of Responses errors to what the client
// can do about them; others are KindUnavailable.
var responsesKinds = map[string]provider.Kind{
	"rate_limit_exceeded":     provider.KindRateLimit,
	"insufficient_quota":      provider.KindRateLimit,
	"context_length_exceeded": provider.KindBadRequest,
	"invalid_prompt":          provider.KindBadRequest,
	"server_overloaded":       provider.KindOverloaded,
}

// responsesError turns a stream error into an Error: nested holds the
// error object (an error event's "error", as OpenAI sends it, or a failed
// response's); a flat error event has its fields at the top level.
func responsesError(name string, data []byte, nested gjson.Result) error {
	obj := nested
	if !obj.IsObject() {
		obj = gjson.ParseBytes(data)
	}
	e := &provider.Error{Provider: name, Kind: provider.KindUnavailable, Message: obj.Get("message").Str,
		Type: obj.Get("type").Str, Code: obj.Get("code").Str, Param: obj.Get("param").Str}
	if e.Type == "error" { // the flat event's own type
		e.Type = ""
	}
	if k, ok := responsesKinds[e.Code]; ok {
		e.Kind = k
	}
	if e.Message == "" {
		e.Message = "upstream error in stream"
	}
	return e
}

// Usage is the upstream's once the terminal event came; before that (a
// cut stream) the gateway's count, flagged as an estimate.
func (s *relay) Usage() provider.Usage {
	if s.gotUsage {
		return s.usage
	}
	return estimateResponses(s.r, &s.sent)
}

// Close releases the upstream connection; after a complete stream the
// rest of the body is read so the connection goes back to the pool.
func (s *relay) Close() error {
	s.rd.Close()
	if s.done && s.err == nil {
		io.CopyN(io.Discard, s.resp.Body, 64<<10)
	}
	err := s.resp.Body.Close()
	s.cancel()
	return err
}
