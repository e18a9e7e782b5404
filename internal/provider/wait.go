package provider

import "context"

type waitHookKey struct{}

// WithWaitHook returns ctx carrying fn, which the streams opened with it
// (Upstream.Open) run before each wait on their upstream: before sending
// the request, and before each read of the body, which may block. A
// client writer that holds events, to send those of one upstream read in
// one flush, flushes them in fn, so that nothing the gateway has received
// waits in a buffer while the gateway waits on the network (issue 18).
//
// fn runs on the goroutine reading the stream, before the idle timer is
// armed: time spent writing to a slow client is not silence. When fn
// fails (the client is gone), the wait does not happen: the request or
// the read fails with a KindCanceled Error wrapping fn's error.
func WithWaitHook(ctx context.Context, fn func() error) context.Context {
	return context.WithValue(ctx, waitHookKey{}, fn)
}

// waitHookFrom returns the hook WithWaitHook put in ctx, or nil.
func waitHookFrom(ctx context.Context) func() error {
	fn, _ := ctx.Value(waitHookKey{}).(func() error)
	return fn
}

// runWaitHook runs fn, if any, and returns its failure as the client's.
func runWaitHook(name string, fn func() error) error {
	if fn == nil {
		return nil
	}
	if err := fn(); err != nil {
		return &Error{Provider: name, Kind: KindCanceled, Err: err}
	}
	return nil
}
