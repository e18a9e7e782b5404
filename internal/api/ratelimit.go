package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// RateLimiter takes requests and tokens per minute (limits.Rates).
type RateLimiter interface {
	Reserve(ctx context.Context, s limits.Subject, tokens int64) (limits.Outcome, error)
	Settle(ctx context.Context, s limits.Subject, reserved, used int64) error
	Refund(ctx context.Context, s limits.Subject, reserved int64) error
}

// reservation is what a request took from its rate limits.
type reservation struct {
	subject limits.Subject
	tokens  int64
}

// reserve checks the request against its rate limits, sets the
// x-ratelimit-* headers, and returns the 429 when a limit refuses it.
func (h *Handler) reserve(w http.ResponseWriter, r *http.Request, c *gateway.Call, t route.Target) (*reservation, *Error) {
	if h.opt.Rates == nil {
		return nil, nil
	}
	p, _ := auth.FromContext(r.Context())
	s := limits.Subject{AccountID: p.AccountID, KeyID: p.KeyID,
		AccountRPM: p.AccountLimits.RPM, AccountTPM: p.AccountLimits.TPM, KeyRPM: p.KeyLimits.RPM, KeyTPM: p.KeyLimits.TPM}
	if s.AccountRPM <= 0 && s.AccountTPM <= 0 && s.KeyRPM <= 0 && s.KeyTPM <= 0 {
		return nil, nil
	}
	tokens := h.estimateTokens(c, t)
	out, err := h.opt.Rates.Reserve(r.Context(), s, tokens)
	if err != nil {
		h.opt.Log.Error("rate limiter", "id", server.RecordFrom(r.Context()).ID, "err", err)
		e := serverError(http.StatusServiceUnavailable, "Rate limits cannot be checked just now. Please retry.")
		e.RetryAfter = 1
		return nil, e
	}
	hdr := w.Header()
	if out.Refused != nil {
		if out.Refused.Kind == "requests" {
			out.Requests, out.HasRequests = out.Refused.Decision, true
		} else {
			out.Tokens, out.HasTokens = out.Refused.Decision, true
		}
	}
	setRateHeaders(hdr, out)
	if out.Refused != nil {
		return nil, rateLimited(hdr, out.Refused)
	}
	return &reservation{subject: s, tokens: tokens}, nil
}

// settle corrects the token reservation to what the request used.
func (h *Handler) settle(r *http.Request, res *reservation, used int64) {
	if res == nil || (res.subject.KeyTPM <= 0 && res.subject.AccountTPM <= 0) {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	if err := h.opt.Rates.Settle(ctx, res.subject, res.tokens, used); err != nil {
		h.opt.Log.Warn("rate limiter settle", "id", server.RecordFrom(r.Context()).ID, "err", err)
	}
}

// refund gives back all a request reserved: the request and its tokens.
func (h *Handler) refund(r *http.Request, res *reservation) {
	if res == nil {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	if err := h.opt.Rates.Refund(ctx, res.subject, res.tokens); err != nil {
		h.opt.Log.Warn("rate limiter refund", "id", server.RecordFrom(r.Context()).ID, "err", err)
	}
}

// estimateTokens is what a request reserves from its TPM limits: the
// prompt estimated at four bytes of body per token, plus the output
// allowance (max_tokens, or the model's default allowance) for each answer
// asked for: n of them, of each prompt of a legacy completion (best_of of
// them when more, as the upstream generates and bills them).
func (h *Handler) estimateTokens(c *gateway.Call, t route.Target) int64 {
	prompt := int64(len(c.Body)/4 + 1)
	if c.Endpoint == provider.EndpointEmbedding {
		return prompt
	}
	out := gjson.GetBytes(c.Body, "max_completion_tokens").Int()
	if out <= 0 {
		out = gjson.GetBytes(c.Body, "max_tokens").Int()
	}
	switch {
	case out > 0:
	case c.Endpoint == provider.EndpointCompletion:
		out = gateway.DefaultCompletionMaxTokens
	default:
		out = h.opt.OutputAllowance
		if m := int64(t.Model.MaxOutputTokens); m > 0 && m < out {
			out = m
		}
	}
	n := max(gjson.GetBytes(c.Body, "n").Int(), 1)
	if c.Endpoint == provider.EndpointCompletion {
		n = max(n, gjson.GetBytes(c.Body, "best_of").Int()) * promptCount(gjson.GetBytes(c.Body, "prompt"))
	}
	return prompt + n*out
}

// promptCount is the number of prompts of a legacy completion: a string or
// one array of token IDs is one; an array of strings or of token-ID
// arrays is one per element.
func promptCount(p gjson.Result) int64 {
	if !p.IsArray() {
		return 1
	}
	n, nested := int64(0), false
	p.ForEach(func(_, v gjson.Result) bool {
		n++
		nested = v.Type == gjson.String || v.IsArray()
		return nested // token IDs: stop, one prompt
	})
	if !nested {
		return 1
	}
	return n
}

// The canonical names of OpenAI's x-ratelimit-* headers, set without
// canonicalising them again on every request.
var (
	requestHeaders = [3]string{"X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests"}
	tokenHeaders   = [3]string{"X-Ratelimit-Limit-Tokens", "X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Tokens"}
)

// setRateHeaders sets OpenAI's x-ratelimit-* headers for the limits that
// apply, with one allocation for all their value slices.
func setRateHeaders(h http.Header, out limits.Outcome) {
	vals := make([]string, 0, 6)
	set := func(names [3]string, d limits.Decision) {
		i := len(vals)
		vals = append(vals, strconv.FormatInt(d.Limit, 10), strconv.FormatInt(d.Remaining, 10), resetString(d.ResetAfter))
		h[names[0]], h[names[1]], h[names[2]] = vals[i:i+1:i+1], vals[i+1:i+2:i+2], vals[i+2:i+3:i+3]
	}
	if out.HasRequests {
		set(requestHeaders, out.Requests)
	}
	if out.HasTokens {
		set(tokenHeaders, out.Tokens)
	}
}

// resetString formats a reset time as OpenAI does: "1s", "6m0s", "20ms".
func resetString(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(int64((d+time.Millisecond-1)/time.Millisecond), 10) + "ms"
	}
	return d.Round(time.Millisecond).String()
}

// rateLimited is the 429 of a refused request: rate_limit_error, no code,
// with Retry-After in whole seconds and retry-after-ms.
func rateLimited(h http.Header, rf *limits.Refusal) *Error {
	unit := "requests per minute"
	if rf.Kind == "tokens" {
		unit = "tokens per minute"
	}
	used := rf.Limit - rf.Remaining
	e := &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true}
	if rf.TooLarge {
		e.Message = fmt.Sprintf("Request too large for %s on %s %s: limit %d, requested %d. "+
			"Reduce the prompt or max_tokens; retrying will not help.", unit, rf.Scope, rf.ID, rf.Limit, rf.Cost)
		return e
	}
	secs := retrySeconds(rf.RetryAfter)
	e.RetryAfter = secs
	h.Set("retry-after-ms", strconv.FormatInt(int64((rf.RetryAfter+time.Millisecond-1)/time.Millisecond), 10))
	extra := ""
	if rf.Kind == "tokens" {
		extra = fmt.Sprintf(", requested %d", rf.Cost)
	}
	e.Message = fmt.Sprintf("Rate limit reached for %s on %s %s: limit %d, used %d%s. Try again in %ds.",
		unit, rf.Scope, rf.ID, rf.Limit, used, extra, secs)
	return e
}
