package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/propagation"
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
	return u.post(ctx, url, body, stream, requestID, nil)
}

// post is Post with extra headers (a client's, passed on by a Forwarder)
// set over the ones every request carries.
func (u *Upstream) post(ctx context.Context, url string, body []byte, stream bool, requestID string, extra http.Header) (*http.Response, error) {
	// The request is made in a function of its own: this frame stays on
	// the stack under the client's whole call, whose deepest point decides
	// whether the goroutine's stack, kept for a stream's life, doubles to
	// 16 KiB (issue 18).
	req, err := u.newRequest(ctx, url, body, stream, requestID, extra)
	if err != nil {
		return nil, err
	}
	resp, err := u.Client.Do(req)
	if err != nil {
		return nil, FromTransport(ctx, u.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, u.statusError(req, resp)
	}
	if stream {
		if err := u.streamEncoding(req, resp); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	return resp, nil
}

// streamEncoding refuses a stream answered compressed though newRequest
// asked for it uncompressed: the transport decompresses only what it
// asked gzip for itself, so the event parser would read compressed
// bytes. The failure is the upstream's, an unreadable answer, as invalid
// JSON in a stream is.
func (u *Upstream) streamEncoding(req *http.Request, resp *http.Response) error {
	for _, v := range resp.Header["Content-Encoding"] {
		for enc := range strings.SplitSeq(v, ",") {
			if enc = strings.TrimSpace(enc); enc != "" && !strings.EqualFold(enc, "identity") {
				e := Unreadable(u.Name, fmt.Errorf("a stream with Content-Encoding %q", v))
				e.Path = req.URL.Path
				return e
			}
		}
	}
	return nil
}

// newRequest makes post's request: the headers every request carries,
// extra over them, the stream's Accept and Accept-Encoding, the request ID
// and the trace.
func (u *Upstream) newRequest(ctx context.Context, url string, body []byte, stream bool, requestID string, extra http.Header) (*http.Request, error) {
	o := &outgoing{vals: [3]string{"text/event-stream", "identity", requestID}}
	o.body.Reset(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &o.body)
	if err != nil {
		return nil, &Error{Provider: u.Name, Kind: KindUnavailable, Err: err}
	}
	u.shareHeader(req.Header)
	for k, vs := range extra {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	vals := o.vals[:]
	if stream {
		// Uncompressed (issue 18): an upstream that gzips a stream when
		// the transport asks for it (Anthropic's does) made the open
		// stream hold a decompressor, 44 KiB of heap, and its compressor
		// may hold events back until it has a block. Asked for by name:
		// a CDN may compress when the header is absent.
		req.Header["Accept"] = vals[0:1:1]
		req.Header["Accept-Encoding"] = vals[1:2:2]
	}
	if requestID != "" {
		req.Header["X-Request-Id"] = vals[2:3:3]
	}
	// The attempt's span, when the request is traced, is the upstream's
	// parent; untraced, ctx has no span and nothing is sent.
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	return req, nil
}

// outgoing holds a request's body reader and the values of the headers
// newRequest sets: one allocation for all (issue 18). The body stays a
// *bytes.Reader: the transport sends the headers and a body of a type it
// knows to be in memory in one write.
type outgoing struct {
	body bytes.Reader
	vals [3]string // Accept and Accept-Encoding of a stream, X-Request-Id
}

// shareHeader puts the headers every request carries into h, a new
// request's empty header, sharing their values with u.Header: safe because
// a value slice is never appended to in place (each is capped at its
// length) nor written (Set and Del replace slices). Header.Clone would copy
// the values, and make a new map besides the request's own (issue 18).
func (u *Upstream) shareHeader(h http.Header) {
	for k, vs := range u.Header {
		h[k] = vs[:len(vs):len(vs)]
	}
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
	return u.CallHeader(ctx, url, body, requestID, nil)
}

// CallHeader is Call with extra headers set over the ones every request
// carries (a client's anthropic-beta, passed on by a Forwarder).
func (u *Upstream) CallHeader(ctx context.Context, url string, body []byte, requestID string, extra http.Header) ([]byte, http.Header, error) {
	_, total := u.bounds(ctx)
	ctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	resp, err := u.post(ctx, url, body, false, requestID, extra)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := readBody(resp, MaxResponseBody)
	if err != nil {
		return nil, nil, FromTransport(ctx, u.Name, err)
	}
	return b, resp.Header, nil
}

// readBody reads at most max bytes of resp's body, into a buffer of the
// declared length (and a byte to see the end) when there is one: one
// allocation instead of io.ReadAll's doublings.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	n := resp.ContentLength
	if n < 0 || n >= max {
		return io.ReadAll(io.LimitReader(resp.Body, max))
	}
	b := make([]byte, 0, n+1)
	for {
		k, err := resp.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return b, err
		case len(b) == cap(b):
			return nil, fmt.Errorf("body longer than its Content-Length %d", n)
		}
	}
}

// Open starts a stream. The first-byte timeout bounds the wait for the
// first byte of the body (response headers alone do not end it: a host
// may send them at once and its first event never); after it, each read
// of the body waits at most the idle timeout, and the whole stream lasts
// at most the total timeout (each the deployment's when ctx carries one:
// WithTimeouts). One timer serves all three (streamBody). The hook ctx
// carries (WithWaitHook) runs before the request is sent and before each
// read of the body. Closing the body stops the timer; the returned cancel
// ends the upstream request: call it when the stream is done.
func (u *Upstream) Open(ctx context.Context, url string, body []byte, requestID string) (*http.Response, context.CancelFunc, error) {
	return u.OpenHeader(ctx, url, body, requestID, nil)
}

// OpenHeader is Open with extra headers, as CallHeader.
func (u *Upstream) OpenHeader(ctx context.Context, url string, body []byte, requestID string, extra http.Header) (*http.Response, context.CancelFunc, error) {
	wait := waitHookFrom(ctx)
	if err := runWaitHook(u.Name, wait); err != nil {
		return nil, nil, err
	}
	firstByte, total := u.bounds(ctx)
	ctx, cancel := context.WithCancel(ctx)
	b := &streamBody{name: u.Name, idle: u.IdleTimeout, firstByte: firstByte, total: total, start: time.Now(),
		cancel: cancel, done: ctx.Done(), wait: wait}
	if _, next := b.due(0); next > 0 {
		// Made unarmed and armed after: fire uses b.timer, which must be
		// set before the timer can fire.
		b.timer = time.AfterFunc(math.MaxInt64, b.fire)
		b.timer.Reset(next)
	}
	resp, err := u.post(ctx, url, body, true, requestID, extra)
	if err != nil {
		b.stop()
		cancel()
		if b.cut.Load() != 0 { // no headers within the first byte's bound
			return nil, nil, b.timeout()
		}
		return nil, nil, err
	}
	b.ReadCloser = resp.Body
	resp.Body = b
	// The context's own cancel, not a function that also stops the
	// timer: that would be one more allocation a stream (issue 18). The
	// body's Close stops the timer, and a timer that fires after cancel
	// finds the request over and is not armed again (fire).
	return resp, cancel, nil
}

// Errors of a stream's timeouts, wrapped in KindTimeout Errors.
var (
	// ErrFirstByteTimeout: a stream sent no byte of its body within its
	// first byte's timeout.
	ErrFirstByteTimeout = errors.New("no first byte within the first_byte_timeout")
	// ErrStreamIdle: a started stream sent nothing for its idle timeout.
	ErrStreamIdle = errors.New("stream idle")
	// errStreamTotal: a stream outlasted its whole call's timeout.
	errStreamTotal = context.DeadlineExceeded
)

// The bounds that cut a stream (streamBody.cut).
const (
	cutFirstByte = 1 + iota
	cutTotal
	cutIdle
)

// streamBody is a stream's body under its timeouts: the first byte's,
// then, once a byte has come, the whole stream's, and the idle one, which
// bounds each read's wait. Time the gateway spends writing to a slow
// client is not counted as silence, and any bytes end a wait (Anthropic's
// pings too), so a model that thinks long behind keep-alives is not cut;
// an upstream that goes silent is (issue 13). A read that fails because a
// bound cut the request fails with a KindTimeout Error saying which.
//
// One timer serves all three. A read does not touch it: it notes when it
// began to wait (waitFrom), and the timer, when it fires, finds whether a
// bound has passed, and if none has, arms itself again for the earliest
// that may. While the stream is open it fires no later than the idle
// timeout after it was armed, so a read that starts waiting is never
// left unwatched for longer. Moving a timer costs a lock and a change to
// the runtime's timer heap, which a stream paid twice for each upstream
// read (issue 18).
type streamBody struct {
	io.ReadCloser
	name      string
	idle      time.Duration // 0: no bound
	firstByte time.Duration // 0: no bound
	total     time.Duration // 0: no bound
	start     time.Time
	cancel    context.CancelFunc
	done      <-chan struct{} // the request's context's: closed when cancel is called
	wait      WaitHook        // WithWaitHook's, told of each read; nil: none
	reading   bool            // wait has been told that this body is read
	eof       bool            // the body has ended: a read waits on nothing
	timer     *time.Timer     // nil without bounds
	// waitFrom is when the read under way began to wait, as the time
	// since start plus one; 0 when no read waits.
	waitFrom atomic.Int64
	started  atomic.Bool  // a byte of the body arrived
	closed   atomic.Bool  // the timer is stopped for good
	cut      atomic.Int32 // the bound that cut the request (cutIdle, ...); 0: none
}

// fire is the timer's: it cuts the request when a bound has passed, and
// otherwise arms the timer again.
func (b *streamBody) fire() {
	if b.closed.Load() {
		return
	}
	select {
	case <-b.done: // the request is over: cut, or ended with cancel
		return
	default:
	}
	cut, next := b.due(time.Since(b.start))
	switch {
	case cut != 0:
		b.cut.Store(cut)
		b.cancel()
	case next > 0:
		b.timer.Reset(next)
		// A Close between the check above and Reset found the timer
		// firing, so its Stop did nothing: stop it here instead.
		if b.closed.Load() {
			b.timer.Stop()
		}
	}
}

// due returns the bound that has passed at now (the time since the
// start), if any, and otherwise how long until one may, or 0 when none
// is left to watch.
func (b *streamBody) due(now time.Duration) (cut int32, next time.Duration) {
	bound, cause := b.firstByte, int32(cutFirstByte)
	if b.started.Load() {
		bound, cause = b.total, cutTotal
	}
	if bound > 0 {
		if now >= bound {
			return cause, 0
		}
		next = bound - now
	}
	if b.idle > 0 {
		// With no read waiting, a read may begin at any moment: look
		// again an idle timeout from now.
		left := b.idle
		if w := b.waitFrom.Load(); w != 0 {
			waited := now - time.Duration(w-1)
			if waited >= b.idle {
				return cutIdle, 0
			}
			left = b.idle - waited
		}
		if next == 0 || left < next {
			next = left
		}
	}
	return 0, next
}

// timeout returns the Error of the bound that cut the stream.
func (b *streamBody) timeout() error {
	switch b.cut.Load() {
	case cutIdle:
		return &Error{Provider: b.name, Kind: KindTimeout, Err: fmt.Errorf("%w: nothing for %v", ErrStreamIdle, b.idle)}
	case cutTotal:
		return &Error{Provider: b.name, Kind: KindTimeout, Err: errStreamTotal}
	}
	return &Error{Provider: b.name, Kind: KindTimeout, Err: ErrFirstByteTimeout}
}

// Read reads the body, each read waiting at most the idle timeout. The
// wait hook runs first, outside the idle bound, but not once the body has
// ended (draining a finished stream, say): then a read waits on nothing.
func (b *streamBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.wait != nil && !b.reading {
		b.reading = true
		b.wait.Reading(true)
	}
	if err := runWaitHook(b.name, b.wait); err != nil {
		return 0, err
	}
	if b.idle > 0 {
		b.waitFrom.Store(int64(time.Since(b.start)) + 1)
	}
	n, err := b.ReadCloser.Read(p)
	if b.idle > 0 {
		b.waitFrom.Store(0)
	}
	b.eof = err == io.EOF
	if n > 0 && !b.started.Load() {
		// The timer, when it fires next, holds the stream to the
		// total's bound rather than the first byte's.
		b.started.Store(true)
	}
	if err != nil && b.cut.Load() != 0 {
		err = b.timeout()
	}
	return n, err
}

// stop stops the timer for good.
func (b *streamBody) stop() {
	b.closed.Store(true)
	if b.timer != nil {
		b.timer.Stop()
	}
}

// Close stops the timer, tells the wait hook that the body is no longer
// read, and closes the body.
func (b *streamBody) Close() error {
	if b.reading {
		b.reading = false
		b.wait.Reading(false)
	}
	b.stop()
	return b.ReadCloser.Close()
}
