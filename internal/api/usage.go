package api

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/limits"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Recorder takes usage records; neither method may block (meter.Meter).
type Recorder interface {
	// Record takes a request's record, once, when it ends.
	Record(r *meter.Record)
	// Progress journals the record a stream still under way would have
	// if it ended now, for a crash to leave behind; r is not kept.
	Progress(r *meter.Record)
}

// BudgetChecker refuses requests over a monthly spend limit
// (limits.Budget).
type BudgetChecker interface {
	Check(ctx context.Context, now time.Time, accountID, keyID string, accountLimit, keyLimit usd.Amount) error
}

// tally builds the usage record of one request that reached a model
// route; with metering off it only keeps the usage for the rate limits.
type tally struct {
	h     *Handler
	model *catalog.Model // whose prices apply
	rec   meter.Record
	done  bool
	// access is the request's access log record, given the record's
	// status so that both say the same.
	access *server.Record

	// A stream's progress: chunks sent, the prompt's size guessed from
	// the body (counting it would be too slow here), and when it was last
	// journaled.
	chunks     int64
	prompt     int64
	progressAt time.Time

	// refund is set when the request failed by the gateway's own fault:
	// its rate-limit reservation is given back whole.
	refund bool
}

// progressInterval is how often a running stream journals its progress.
const progressInterval = 5 * time.Second

func (h *Handler) tally(r *http.Request, c *gateway.Call, t route.Target) *tally {
	p, _ := auth.FromContext(r.Context())
	sr := server.RecordFrom(r.Context())
	start := sr.Start
	if start.IsZero() {
		start = time.Now()
	}
	return &tally{h: h, model: t.Model, access: sr, prompt: int64(len(c.Body)/4 + 1), rec: meter.Record{
		ID: recordID(start), RequestID: sr.ID, Time: start,
		AccountID: p.AccountID, KeyID: p.KeyID, Endpoint: c.Endpoint.String(),
		Model: c.Model, Provider: t.Provider.Name(), UpstreamModel: t.UpstreamID,
		PriceVersion: h.opt.Gateway.Routes().PriceVersion(), Streamed: c.Stream,
	}}
}

// recordID returns a unique record ID that sorts by time: the arrival in
// nanoseconds (base 32, 13 digits until the year 2083) and 10 random
// characters. Time order makes the ledger's inserts appends to its
// primary key index rather than random insertions.
func recordID(t time.Time) string {
	var b [4 + 13 + 10]byte
	copy(b[:], "usg_")
	ts := strconv.AppendUint(b[4:4], uint64(t.UnixNano()), 32)
	n := 4 + len(ts)
	n += copy(b[n:], strings.ToLower(rand.Text()[:10]))
	return string(b[:n])
}

// chunk notes a streamed chunk about to be sent. The first one sets the
// time to first chunk; it and then one every progressInterval journal the
// stream's progress before the chunk goes out, so that a stream a client
// has seen is recorded even if the process dies under it.
func (u *tally) chunk() {
	u.chunks++
	first := u.rec.TTFT == 0
	if first {
		u.rec.TTFT = max(time.Since(u.rec.Time), time.Nanosecond)
	}
	if u.h.opt.Meter == nil || !first && time.Since(u.progressAt) < progressInterval {
		return
	}
	u.progressAt = time.Now()
	// The record of a stream cut here: status 200 sent, not complete,
	// a chunk counted as a token, the prompt guessed.
	p := u.rec
	u.fill(&p, http.StatusOK, provider.Usage{PromptTokens: int(u.prompt), CompletionTokens: int(u.chunks), Estimated: true}, "", true)
	u.h.opt.Meter.Progress(&p)
}

// finish completes the record and hands it to the meter, once.
func (u *tally) finish(status int, us provider.Usage, errType string, cancelled bool) {
	if u.done {
		return
	}
	u.done = true
	u.access.Status = status
	u.fill(&u.rec, status, us, errType, cancelled)
	if u.h.opt.Meter != nil {
		u.h.opt.Meter.Record(&u.rec)
	}
}

// fill completes r with its outcome, usage, prices and cost.
func (u *tally) fill(r *meter.Record, status int, us provider.Usage, errType string, cancelled bool) {
	r.Status, r.ErrorType, r.Cancelled = status, errType, cancelled
	r.PromptTokens, r.CompletionTokens = int64(us.PromptTokens), int64(us.CompletionTokens)
	r.TotalTokens, r.CachedTokens, r.Estimated = int64(us.TotalTokens), int64(us.CachedTokens), us.Estimated
	if r.TotalTokens == 0 {
		r.TotalTokens = r.PromptTokens + r.CompletionTokens
	}
	// The prompt's size picks the prices: some models charge a whole
	// request with a long prompt more.
	prices := u.model.PricesFor(r.PromptTokens)
	r.InputPrice, r.CachedPrice, r.OutputPrice = int64(prices.Input), int64(prices.Cached), int64(prices.Output)
	r.Cost = r.Price()
	r.Latency = time.Since(r.Time)
}

// abandon records a request whose handler ended without finishing its
// record (a panic): the client got a 500 or a cut connection.
func (u *tally) abandon() {
	u.finish(http.StatusInternalServerError, provider.Usage{}, "server_error", false)
}

// fail records and writes an error of the gateway's own.
func (h *Handler) fail(w http.ResponseWriter, u *tally, e *Error) {
	u.finish(e.Status, provider.Usage{}, e.Type, false)
	WriteError(w, e)
}

// checkBudget returns the 429 for a request over a monthly spend limit.
func (h *Handler) checkBudget(r *http.Request) *Error {
	if h.opt.Budget == nil {
		return nil
	}
	p, _ := auth.FromContext(r.Context())
	err := h.opt.Budget.Check(r.Context(), time.Now(), p.AccountID, p.KeyID,
		p.AccountLimits.MonthlyBudget, p.KeyLimits.MonthlyBudget)
	var ob *limits.OverBudget
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ob):
		return overBudget(ob, time.Now())
	}
	h.opt.Log.Error("budget check", "id", server.RecordFrom(r.Context()).ID, "err", err)
	e := serverError(http.StatusServiceUnavailable, "Spend limits cannot be checked just now. Please retry.")
	e.RetryAfter = 1
	return e
}

// overBudget is the spec's 429 for an account limit: rate_limit_error and
// no code, with a message that says which limit and when it resets.
func overBudget(ob *limits.OverBudget, now time.Time) *Error {
	whose := "The account's"
	if ob.Scope == "key" {
		whose = "This API key's"
	}
	return &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", NoCode: true,
		RetryAfter: max(int(ob.Reset.Sub(now)/time.Second)+1, 1),
		Message: fmt.Sprintf("%s monthly spend limit of %s was reached: %s spent in %s (UTC). "+
			"Requests resume on %s UTC, or as soon as the limit is raised.",
			whose, ob.Limit.Dollars(), ob.Spent.Dollars(), ob.Reset.AddDate(0, -1, 0).Format("January 2006"),
			ob.Reset.Format("2006-01-02"))}
}
