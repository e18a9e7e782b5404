package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Limits on what is read from an upstream.
const (
	// MaxErrorBody bounds how much of an upstream error answer is read.
	MaxErrorBody = 1 << 20
	// MaxResponseBody bounds a non-streamed upstream answer.
	MaxResponseBody = 64 << 20
)

// Upstream is the HTTP plumbing every adapter shares: one tuned client, the
// headers each request carries, the call timeout, and the adapter's
// reading of error answers.
type Upstream struct {
	Name   string
	Client *http.Client
	Header http.Header // sent with every request
	// Timeout bounds a whole call, a stream included.
	Timeout time.Duration
	// FirstByteTimeout bounds a stream's wait for its response headers;
	// 0 or more than Timeout: Timeout.
	FirstByteTimeout time.Duration
	// ConnectTimeout is the dial bound of Client's transport (see
	// NewTransport), reported by Timeouts.
	ConnectTimeout time.Duration
	// IdleTimeout bounds the silence between reads of a started stream:
	// past it the stream fails with ErrStreamIdle (a KindTimeout Error).
	// 0: no bound.
	IdleTimeout time.Duration
	// Classify turns a non-200 answer into an error (default FromStatus).
	Classify func(name string, status int, h http.Header, body []byte) error
}

// Post sends body to url and returns the response when the status is 200;
// otherwise the classified error. The caller closes the body.
func (u *Upstream) Post(ctx context.Context, url string, body []byte, stream bool, requestID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Provider: u.Name, Kind: KindUnavailable, Err: err}
	}
	req.Header = u.Header.Clone()
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if requestID != "" {
		req.Header.Set("X-Request-Id", requestID)
	}
	resp, err := u.Client.Do(req)
	if err != nil {
		return nil, FromTransport(ctx, u.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, u.statusError(req, resp)
	}
	return resp, nil
}

// statusError reads and classifies a non-200 answer to req, and notes
// the path that gave it.
func (u *Upstream) statusError(req *http.Request, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	var err error = FromStatus(u.Name, resp.StatusCode, resp.Header, b)
	if u.Classify != nil {
		err = u.Classify(u.Name, resp.StatusCode, resp.Header, b)
	}
	var pe *Error
	if errors.As(err, &pe) {
		pe.Path = req.URL.Path
	}
	return err
}

// Probe sends a GET to url (a models list: free) with the headers every
// request carries, bounded by the timeout, and returns the classified
// error unless the answer is 200.
func (u *Upstream) Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, u.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &Error{Provider: u.Name, Kind: KindUnavailable, Err: err}
	}
	req.Header = u.Header.Clone()
	req.Header.Del("Content-Type")
	resp, err := u.Client.Do(req)
	if err != nil {
		return FromTransport(ctx, u.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return u.statusError(req, resp)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, MaxErrorBody))
	return nil
}

// Call posts body and reads the whole answer, bounded by the total
// timeout (the deployment's, when ctx carries one: WithTimeouts).
func (u *Upstream) Call(ctx context.Context, url string, body []byte, requestID string) ([]byte, http.Header, error) {
	_, total := u.bounds(ctx)
	ctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	resp, err := u.Post(ctx, url, body, false, requestID)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	if err != nil {
		return nil, nil, FromTransport(ctx, u.Name, err)
	}
	return b, resp.Header, nil
}

// Open starts a stream. The first-byte timeout bounds the wait for the
// response headers; after them, each read of the body waits at most the
// idle timeout, and the whole stream lasts at most the total timeout
// (each the deployment's when ctx carries one: WithTimeouts). The
// returned cancel ends the upstream request; call it when the stream is
// done.
func (u *Upstream) Open(ctx context.Context, url string, body []byte, requestID string) (*http.Response, context.CancelFunc, error) {
	firstByte, total := u.bounds(ctx)
	ctx, stopTotal := context.WithTimeout(ctx, total)
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(nil); stopTotal() }
	timer := time.AfterFunc(firstByte, func() { cancelCause(context.DeadlineExceeded) })
	resp, err := u.Post(ctx, url, body, true, requestID)
	if !timer.Stop() { // fired: no headers within the timeout
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		return nil, nil, &Error{Provider: u.Name, Kind: KindTimeout, Err: context.DeadlineExceeded}
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if u.IdleTimeout > 0 {
		resp.Body = newIdleBody(resp.Body, u.Name, u.IdleTimeout, cancelCause)
	}
	return resp, cancel, nil
}

// ErrStreamIdle: a started stream sent nothing for its idle timeout.
var ErrStreamIdle = errors.New("stream idle")

// idleBody is a stream's body whose reads fail once one has waited the
// idle timeout for bytes: a timer, armed while a read waits, cancels the
// request. Time the gateway spends writing to a slow client is not
// counted, and any bytes end the wait (Anthropic's pings too), so a model
// that thinks long behind keep-alives is not cut; an upstream that goes
// silent is (issue 13).
type idleBody struct {
	io.ReadCloser
	name  string
	idle  time.Duration
	timer *time.Timer
	fired atomic.Bool
}

func newIdleBody(body io.ReadCloser, name string, idle time.Duration, cancel context.CancelCauseFunc) *idleBody {
	b := &idleBody{ReadCloser: body, name: name, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.fired.Store(true)
		cancel(ErrStreamIdle)
	})
	b.timer.Stop()
	return b
}

// Read reads the body, turning the failure the idle timer caused into a
// KindTimeout Error wrapping ErrStreamIdle.
func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.idle)
	n, err := b.ReadCloser.Read(p)
	b.timer.Stop()
	if err != nil && b.fired.Load() {
		err = &Error{Provider: b.name, Kind: KindTimeout, Err: fmt.Errorf("%w: nothing for %v", ErrStreamIdle, b.idle)}
	}
	return n, err
}

// Close stops the timer and closes the body.
func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}
