package anthropic

import (
	"context"
	"errors"
	"io"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// Chat answers a chat completion.
func (c *Client) Chat(ctx context.Context, r *provider.Request) (*provider.Response, error) {
	body, legacy, err := translateRequest(r, false)
	if err != nil {
		return nil, c.named(err)
	}
	b, h, err := c.up.Call(ctx, c.url(), body, r.RequestID)
	if err != nil {
		return nil, err
	}
	out, u, err := completionOf(c.opt.Name, b, r.Model, c.now().Unix(), legacy)
	if err != nil {
		return nil, err
	}
	return &provider.Response{Body: out, Usage: u, Header: h}, nil
}

// ChatStream streams a chat completion. The timeout bounds only the wait
// for the response headers; the stream then lasts as long as ctx.
func (c *Client) ChatStream(ctx context.Context, r *provider.Request) (provider.Stream, error) {
	body, legacy, err := translateRequest(r, true)
	if err != nil {
		return nil, c.named(err)
	}
	resp, cancel, err := c.up.Open(ctx, c.url(), body, r.RequestID)
	if err != nil {
		return nil, err
	}
	ctx = resp.Request.Context()
	tr := newTranslator(c.opt.Name, r, c.now().Unix(), legacy)
	return newStream(ctx, cancel, resp.Body, tr), nil
}

var _ provider.Awaiter = (*stream)(nil)

// stream adapts an upstream event stream to provider.Stream, translating
// each event as it arrives.
type stream struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   io.ReadCloser
	rd     *sse.Reader
	tr     *translator
	next   int   // index in tr.out of the next chunk to return
	err    error // sticky failure
}

func newStream(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, tr *translator) *stream {
	return &stream{ctx: ctx, cancel: cancel, body: body, rd: sse.NewReader(body, 0), tr: tr}
}

// Next returns the next chunk; io.EOF after the last one (the usage chunk
// when the client asked for it). A failure, upstream error events
// included, is a *provider.Error, returned again on later calls.
func (s *stream) Next() ([]byte, error) {
	for {
		if s.next < len(s.tr.out) {
			b := s.tr.out[s.next]
			s.next++
			return b, nil
		}
		s.tr.out, s.next = s.tr.out[:0], 0
		switch {
		case s.err != nil:
			return nil, s.err
		case s.tr.stopped:
			return nil, io.EOF
		}
		s.err = s.read()
	}
}

// read translates the next upstream event.
func (s *stream) read() error {
	ev, err := s.rd.Next()
	switch {
	case errors.Is(err, io.EOF):
		return s.tr.end()
	case err != nil:
		return provider.FromTransport(s.ctx, s.tr.name, err)
	}
	return s.tr.event(ev.Event, ev.Data)
}

// Await waits for the upstream's next bytes when Next would, no chunk
// being ready (provider.Awaiter).
func (s *stream) Await() {
	if s.next >= len(s.tr.out) && s.err == nil && !s.tr.stopped {
		s.rd.Await()
	}
}

func (s *stream) Usage() provider.Usage { return s.tr.usageSoFar() }

// Close releases the upstream connection. After a complete stream the
// rest of the body is read so the connection goes back to the pool.
func (s *stream) Close() error {
	s.rd.Close()
	if s.tr.stopped && s.err == nil {
		io.CopyN(io.Discard, s.body, 64<<10)
	}
	err := s.body.Close()
	s.cancel()
	return err
}
