package gateway

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/jsonscan"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// BudgetChecker refuses requests over a monthly spend limit
// (limits.Budget) with a *limits.OverBudget.
type BudgetChecker interface {
	Check(ctx context.Context, now time.Time, accountID, keyID string, accountLimit, keyLimit usd.Amount) error
}

// RateLimiter takes requests and tokens per minute (limits.Rates).
type RateLimiter interface {
	Reserve(ctx context.Context, s limits.Subject, tokens int64) (limits.Outcome, error)
	Settle(ctx context.Context, s limits.Subject, reserved, used int64) error
	Refund(ctx context.Context, s limits.Subject, reserved int64) error
}

// Errors of the limits that are not the client's: the request is refused
// because its limits cannot be checked (fail closed).
var (
	ErrBudgetUnavailable = errors.New("spend limits cannot be checked")
	ErrRatesUnavailable  = errors.New("rate limits cannot be checked")
)

// RateLimited reports a request a rate limit refused.
type RateLimited struct {
	Refusal *limits.Refusal
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("%s per minute limit of %s %s reached", e.Refusal.Kind, e.Refusal.Scope, e.Refusal.ID)
}

// checkBudget refuses a request over a monthly spend limit with the
// *limits.OverBudget.
func (g *Gateway) checkBudget(ctx context.Context, req *Request) error {
	if g.opt.Budget == nil {
		return nil
	}
	p := req.Principal
	err := g.opt.Budget.Check(ctx, time.Now(), p.AccountID, p.KeyID, p.AccountLimits.MonthlyBudget, p.KeyLimits.MonthlyBudget)
	if err == nil {
		return nil
	}
	if ob := (*limits.OverBudget)(nil); errors.As(err, &ob) { // ob escapes: declared only on failure
		return err
	}
	g.opt.Log.Error("budget check", "id", requestID(req), "err", err)
	return fmt.Errorf("%w: %w", ErrBudgetUnavailable, err)
}

// reservation is what a request took from its rate limits; the zero
// value took nothing. It lives in the exchange, small: the limits' subject
// is the request's caller's (subjectOf), not kept twice (issue 18).
type reservation struct {
	tokens int64
	taken  bool
}

// subjectOf is the subject of p's rate limits.
func subjectOf(p *auth.Principal) limits.Subject {
	return limits.Subject{AccountID: p.AccountID, KeyID: p.KeyID,
		AccountRPM: p.AccountLimits.RPM, AccountTPM: p.AccountLimits.TPM, KeyRPM: p.KeyLimits.RPM, KeyTPM: p.KeyLimits.TPM}
}

// reserve checks the request against its rate limits and sets the
// x-ratelimit-* headers, whose values it keeps in vals; a limit that
// refuses it is a *RateLimited.
func (g *Gateway) reserve(ctx context.Context, req *Request, m *catalog.Model, hdr http.Header, vals *[6]string) (reservation, error) {
	if g.opt.Rates == nil {
		return reservation{}, nil
	}
	s := subjectOf(&req.Principal)
	if s.AccountRPM <= 0 && s.AccountTPM <= 0 && s.KeyRPM <= 0 && s.KeyTPM <= 0 {
		return reservation{}, nil
	}
	tokens := estimateTokens(req.Endpoint, req.chatBody(), req.sizes(), m, g.opt.OutputAllowance)
	out, err := g.opt.Rates.Reserve(ctx, s, tokens)
	if err != nil {
		g.opt.Log.Error("rate limiter", "id", requestID(req), "err", err)
		return reservation{}, fmt.Errorf("%w: %w", ErrRatesUnavailable, err)
	}
	if out.Refused != nil {
		if out.Refused.Kind == "requests" {
			out.Requests, out.HasRequests = out.Refused.Decision, true
		} else {
			out.Tokens, out.HasTokens = out.Refused.Decision, true
		}
	}
	setRateHeaders(hdr, out, vals)
	if out.Refused != nil {
		return reservation{}, &RateLimited{Refusal: out.Refused}
	}
	return reservation{tokens: tokens, taken: true}, nil
}

// settle corrects the token reservation to what the request used.
func (g *Gateway) settle(ctx context.Context, req *Request, res *reservation, used int64) {
	if !res.taken {
		return
	}
	s := subjectOf(&req.Principal)
	if s.KeyTPM <= 0 && s.AccountTPM <= 0 {
		return
	}
	if err := g.opt.Rates.Settle(context.WithoutCancel(ctx), s, res.tokens, used); err != nil {
		g.opt.Log.Warn("rate limiter settle", "id", requestID(req), "err", err)
	}
}

// refund gives back all a request reserved: the request and its tokens.
func (g *Gateway) refund(ctx context.Context, req *Request, res *reservation) {
	if !res.taken {
		return
	}
	if err := g.opt.Rates.Refund(context.WithoutCancel(ctx), subjectOf(&req.Principal), res.tokens); err != nil {
		g.opt.Log.Warn("rate limiter refund", "id", requestID(req), "err", err)
	}
}

// estimateTokens is what a request reserves from its TPM limits: the
// prompt estimated at four bytes of body per token, plus the output
// allowance (max_tokens, or the model's default allowance) for each answer
// asked for: n of them, of each prompt of a legacy completion (best_of of
// them when more, as the upstream generates and bills them). The sizes
// are body's, read when the handler did not (Sizes.Read). The sum is
// capped at math.MaxInt64: a valid max_tokens may be as large, and a sum
// that wrapped would be refused as a negative cost (a 503 and an error
// logged) or pass as a small one, where it is too large for any limit.
func estimateTokens(e provider.Endpoint, body []byte, s Sizes, m *catalog.Model, allowance int64) int64 {
	prompt := int64(len(body)/4 + 1)
	if e == provider.EndpointEmbedding {
		return prompt
	}
	if !s.Read {
		s = SizesOf(body)
	}
	out := s.MaxCompletionTokens
	if out <= 0 {
		out = s.MaxTokens
	}
	switch {
	case out > 0:
	case e == provider.EndpointCompletion:
		out = DefaultCompletionMaxTokens
	default:
		out = allowance
		if mo := int64(m.MaxOutputTokens); mo > 0 && mo < out {
			out = mo
		}
	}
	n := max(s.N, 1)
	if e == provider.EndpointCompletion {
		n = mulCapped(max(n, s.BestOf), s.Prompts)
	}
	return addCapped(prompt, mulCapped(n, out))
}

// mulCapped returns a×b for a, b ≥ 0, or math.MaxInt64 when it is more.
func mulCapped(a, b int64) int64 {
	if a > 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// addCapped returns a+b for a, b ≥ 0, or math.MaxInt64 when it is more.
func addCapped(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// Sizes are the top-level fields of a body that size its answers, which
// the tokens a request reserves from its TPM limits count. The first of
// duplicates counts, as for gjson.Get; an absent field is 0.
type Sizes struct {
	// Read reports whether the fields were read: a handler that walks the
	// body to validate it reads them then, sparing the limits a walk of
	// their own (issue 18).
	Read                                      bool
	MaxCompletionTokens, MaxTokens, N, BestOf int64
	// Prompts is a legacy completion's number of prompts (promptCount);
	// the limits read it of no other endpoint.
	Prompts int64
}

// SizesOf reads body's sizes in one walk, in place: a lookup of each
// field would walk the whole body (its messages included) for each one
// absent, as most are (issue 18). The limits read them so when the
// handler did not (Sizes.Read): for a chat translation (ChatBody) and for
// a Messages or Responses body sent natively. The chat and completions
// handlers read them in their validation walk, which must agree with
// this one (api's TestCheckedSizes compares them).
func SizesOf(body []byte) Sizes {
	var maxCompletionTokens, maxTokens, n, bestOf, prompt gjson.Result
	gjson.Parse(jsonscan.View(body)).ForEach(func(k, v gjson.Result) bool {
		var to *gjson.Result
		switch k.Str {
		case "max_completion_tokens":
			to = &maxCompletionTokens
		case "max_tokens":
			to = &maxTokens
		case "n":
			to = &n
		case "best_of":
			to = &bestOf
		case "prompt":
			to = &prompt
		default:
			return true
		}
		if !to.Exists() {
			*to = v
		}
		return true
	})
	return Sizes{Read: true, MaxCompletionTokens: maxCompletionTokens.Int(), MaxTokens: maxTokens.Int(),
		N: n.Int(), BestOf: bestOf.Int(), Prompts: promptCount(prompt)}
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
// apply, their values kept in vals (the exchange's: a header map holds
// the strings, not the array, once net/http copies it to send it), with
// one allocation for all their texts.
func setRateHeaders(h http.Header, out limits.Outcome, vals *[6]string) {
	var ds [2]limits.Decision
	var names [2][3]string
	n := 0
	if out.HasRequests {
		ds[n], names[n] = out.Requests, requestHeaders
		n++
	}
	if out.HasTokens {
		ds[n], names[n] = out.Tokens, tokenHeaders
		n++
	}
	if n == 0 {
		return
	}
	// The texts of all values, one after the other, and where each ends.
	var text [6 * 24]byte
	t, ends := text[:0], [6]int{}
	for i, d := range ds[:n] {
		t = strconv.AppendInt(t, d.Limit, 10)
		ends[3*i] = len(t)
		t = strconv.AppendInt(t, d.Remaining, 10)
		ends[3*i+1] = len(t)
		t = appendReset(t, d.ResetAfter)
		ends[3*i+2] = len(t)
	}
	all := string(t)
	start := 0
	for i := range 3 * n {
		vals[i], start = all[start:ends[i]], ends[i]
		h[names[i/3][i%3]] = vals[i : i+1 : i+1]
	}
}

// appendReset appends a reset time as OpenAI formats it: "1s", "6m0s",
// "20ms".
func appendReset(b []byte, d time.Duration) []byte {
	switch {
	case d <= 0:
		return append(b, "0s"...)
	case d < time.Second:
		return append(strconv.AppendInt(b, int64((d+time.Millisecond-1)/time.Millisecond), 10), "ms"...)
	}
	return append(b, d.Round(time.Millisecond).String()...)
}
