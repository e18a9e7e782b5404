package provider

import "context"

// WaitHook is told of the waits of the streams opened with it
// (WithWaitHook): a client writer that holds events, to send those of one
// upstream read in one flush, flushes them in Wait, so that nothing the
// gateway has received waits in a buffer while the gateway waits on the
// network (issue 18).
//
// Both methods run on the goroutine reading the stream.
type WaitHook interface {
	// Wait runs before each wait on the upstream: before the request is
	// sent, and before each read of the body, which may block. It runs
	// before the idle timer is armed: time spent writing to a slow client
	// is not silence. When Wait fails (the client is gone), the wait does
	// not happen: the request or the read fails with a KindCanceled Error
	// wrapping its error.
	Wait() error
	// Reading runs with true at the first read of a stream's body and
	// with false when that body is closed. In between, the stream waits
	// on nothing without calling Wait first, so its events may be held
	// until Wait; outside (before an attempt's stream, between the
	// streams of several prompts, or with a stream that is not read from
	// an upstream, such as the mock's), they may not.
	Reading(on bool)
}

// WaitFunc is a WaitHook of a Wait alone; its Reading does nothing.
type WaitFunc func() error

// Wait calls f.
func (f WaitFunc) Wait() error { return f() }

// Reading does nothing.
func (WaitFunc) Reading(bool) {}

type waitHookKey struct{}

// WithWaitHook returns ctx carrying h, which the streams opened with it
// (Upstream.Open) tell of their waits.
func WithWaitHook(ctx context.Context, h WaitHook) context.Context {
	return context.WithValue(ctx, waitHookKey{}, h)
}

// waitHookFrom returns the hook WithWaitHook put in ctx, or nil.
func waitHookFrom(ctx context.Context) WaitHook {
	h, _ := ctx.Value(waitHookKey{}).(WaitHook)
	return h
}

// runWaitHook runs h's Wait, if any, and returns its failure as the
// client's.
func runWaitHook(name string, h WaitHook) error {
	if h == nil {
		return nil
	}
	if err := h.Wait(); err != nil {
		return &Error{Provider: name, Kind: KindCanceled, Err: err}
	}
	return nil
}
