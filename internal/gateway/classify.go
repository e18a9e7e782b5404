package gateway

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
)

// verdict is what one failure means for the request and the deployment.
type verdict struct {
	// retry reports that another attempt may answer; sameAgain that it
	// may be at the same deployment.
	retry, sameAgain bool
	// fallback reports that another model may answer when this one's
	// attempts are spent.
	fallback bool
	// count reports a failure of the deployment, of class, for health;
	// retryAfter is the upstream's Retry-After.
	count      bool
	class      string
	retryAfter time.Duration
}

// classify decides, once, what a failed attempt means. A client that went
// away or a gateway shutting down ends the request and is nobody's fault;
// the client's own mistakes (400, 404, 413, 422 and the like) are
// answered at once; upstream overload, rate limiting, failures and
// timeouts before the first byte are retried and count against the
// deployment, as do the gateway's own credentials or base URL being
// refused, which another deployment may not share.
func classify(ctx context.Context, err error) verdict {
	if ctx.Err() != nil {
		return verdict{}
	}
	var pe *provider.Error
	var nd *NoDeployment
	switch {
	case errors.As(err, &nd), contextTooLong(err):
		return verdict{fallback: true}
	case !errors.As(err, &pe):
		return verdict{}
	}
	retry := verdict{retry: true, sameAgain: true, fallback: true, count: true, retryAfter: pe.RetryAfter}
	switch pe.Kind {
	case provider.KindRateLimit:
		retry.class = "rate_limit"
	case provider.KindOverloaded:
		retry.class = "overloaded"
	case provider.KindTimeout:
		retry.class = "timeout"
		if errors.Is(err, errFirstByteTimeout) {
			retry.class = "first_byte_timeout"
		}
	case provider.KindUnavailable:
		retry.class = transportClass(pe)
	case provider.KindAuth, provider.KindNoEndpoint:
		retry.sameAgain, retry.class = false, "auth"
		if pe.Kind == provider.KindNoEndpoint {
			retry.class = "no_endpoint"
		}
	default: // the client's request, or the client gone
		return verdict{}
	}
	return retry
}

// transportClass names an upstream failure without a usable answer:
// "unavailable" for a 5xx, "connect" when no connection was made, else
// "reset".
func transportClass(pe *provider.Error) string {
	var op *net.OpError
	switch {
	case pe.Status != 0 || pe.Err == nil:
		return "unavailable"
	case errors.As(pe.Err, &op) && op.Op == "dial":
		return "connect"
	}
	return "reset"
}

// contextTooLong reports a prompt too long for the model: the gateway's
// own check, or the upstream's context_length_exceeded.
func contextTooLong(err error) bool {
	var tl *ContextTooLong
	var pe *provider.Error
	return errors.As(err, &tl) ||
		errors.As(err, &pe) && pe.Kind == provider.KindBadRequest && pe.Code == "context_length_exceeded"
}

// gatewayFault reports whether err is the gateway's own configuration
// failing (an upstream refusing its credentials, or a base URL the
// upstream has no endpoint at): such a request does not count against
// the client's rate limits.
func gatewayFault(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && (pe.Kind == provider.KindAuth || pe.Kind == provider.KindNoEndpoint)
}

// upstreamAttrs are the log attributes of an upstream failure: the
// provider, and the status and path the upstream answered with.
func upstreamAttrs(err error) []any {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Status == 0 {
		return nil
	}
	return []any{"provider", pe.Provider, "upstream_status", pe.Status, "upstream_path", pe.Path}
}

// errFirstByteTimeout cuts a stream whose first byte did not come within
// its deployment's first_byte_timeout: the adapter's error, or the
// gateway's for a provider that bounds nothing itself.
var errFirstByteTimeout = provider.ErrFirstByteTimeout

// noTimeouts are the timers of an attempt the gateway does not time: none.
var noTimeouts = &timeouts{}

// timeouts are an attempt's timer: the first byte's, stopped when it
// arrives.
type timeouts struct {
	cancel  context.CancelCauseFunc
	firstBy *time.Timer
	ctx     context.Context
}

// withTimeouts returns the attempt's context under d's timeouts. An
// adapter that reports its timeouts (provider.Timeouter) enforces them
// itself, told the deployment's own when they differ from its provider's
// (provider.WithTimeouts): the whole call's, and a stream's first byte of
// body. For any other provider the gateway bounds a stream's first chunk
// itself. A plain call has no first byte's bound: its answer comes whole,
// when it is written, and a long answer is not a stall.
func withTimeouts(ctx context.Context, d *route.Deployment, stream bool) (context.Context, *timeouts) {
	if tp, ok := d.Provider.(provider.Timeouter); ok {
		if pt := tp.Timeouts(); pt.FirstByte != d.FirstByteTimeout || pt.Total != d.Timeout {
			// The deployment's own, longer or shorter than its provider's.
			ctx = provider.WithTimeouts(ctx, provider.Timeouts{FirstByte: d.FirstByteTimeout, Total: d.Timeout})
		}
		return ctx, noTimeouts
	}
	if !stream || d.FirstByteTimeout <= 0 {
		return ctx, noTimeouts
	}
	actx, cancel := context.WithCancelCause(ctx)
	t := &timeouts{cancel: cancel, ctx: actx}
	t.firstBy = time.AfterFunc(d.FirstByteTimeout, func() { cancel(errFirstByteTimeout) })
	return actx, t
}

// firstByte stops the first byte's timer.
func (t *timeouts) firstByte() {
	if t.firstBy != nil {
		t.firstBy.Stop()
	}
}

// end stops the timers and releases the attempt's context.
func (t *timeouts) end() {
	if t.cancel == nil {
		return
	}
	t.firstByte()
	t.cancel(context.Canceled)
}

// classified returns err, or the upstream timeout it is when one of the
// attempt's timers cut it while the client (ctx) was still there.
func (t *timeouts) classified(ctx context.Context, providerName string, err error) error {
	if t.ctx == nil || ctx.Err() != nil {
		return err
	}
	if context.Cause(t.ctx) == errFirstByteTimeout {
		return &provider.Error{Provider: providerName, Kind: provider.KindTimeout, Err: errFirstByteTimeout}
	}
	return err
}
