// Package meter records the usage and cost of every request that reached a
// model route: records are journaled, queued without blocking the
// response, and written to the store in batches, exactly once.
package meter

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Record is the usage of one request that reached a model route, whether
// it succeeded or not.
type Record struct {
	// ID is the gateway's own unique ID for the record: the idempotency
	// key of the ledger (a client may reuse its X-Request-Id).
	ID        string    `json:"id"`
	RequestID string    `json:"request_id"`
	Time      time.Time `json:"time"` // when the request arrived
	AccountID string    `json:"account_id"`
	KeyID     string    `json:"key_id"`
	// Endpoint is "chat.completions", "completions", "embeddings",
	// "messages" or "responses" (provider.Endpoint.String).
	Endpoint      string `json:"endpoint"`
	Model         string `json:"model"`
	Provider      string `json:"provider"`
	UpstreamModel string `json:"upstream_model"`
	// RequestedModel is the model the client asked for; Model is the one
	// that answered, whose prices apply (a fallback's, issue 15).
	RequestedModel string `json:"requested_model,omitempty"`
	// Deployment is the key ("provider/upstream_id") of the deployment
	// that answered or failed last; Attempts is how many upstream calls
	// the request made.
	Deployment string `json:"deployment,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`

	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	// Estimated reports token counts made by the gateway (tokenizer or
	// estimate), not reported by the upstream.
	Estimated bool `json:"estimated,omitempty"`

	// InputPrice and OutputPrice are the catalogue prices used, pico-USD
	// per token; PriceVersion names the price sheet they came from.
	InputPrice int64 `json:"input_price"`
	// CachedPrice is the price of each of the CachedTokens, which are
	// part of PromptTokens: the catalogue's cache price, or InputPrice.
	CachedPrice  int64      `json:"cached_price"`
	OutputPrice  int64      `json:"output_price"`
	PriceVersion string     `json:"price_version"`
	Cost         usd.Amount `json:"cost"`

	Latency time.Duration `json:"latency"`
	// TTFT is the time to the first streamed chunk; 0 when not streamed or
	// no chunk was sent.
	TTFT time.Duration `json:"ttft,omitempty"`
	// Status is the HTTP status the client got (499 when it went away).
	Status int `json:"status"`
	// ErrorType is the OpenAI error type sent, "" on success.
	ErrorType string `json:"error_type,omitempty"`
	Streamed  bool   `json:"streamed,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

// Period returns the calendar month (UTC) the record's spend counts in,
// as "2006-01".
func (r *Record) Period() string { return PeriodOf(r.Time) }

// PeriodOf returns the calendar month (UTC) of t as "2006-01".
func PeriodOf(t time.Time) string { return t.UTC().Format("2006-01") }

// Periods names calendar months as "2006-01" for a caller that names one
// on every request: the month last named is kept, so that its name is
// formatted (and allocated) once a month, not per request. The zero value
// is ready; it is safe for concurrent use.
type Periods struct {
	last atomic.Pointer[period]
}

// period is a calendar month and its name.
type period struct {
	year  int
	month time.Month
	name  string
}

// Of returns the month of t, in t's location, as "2006-01".
func (c *Periods) Of(t time.Time) string {
	y, m, _ := t.Date()
	if p := c.last.Load(); p != nil && p.year == y && p.month == m {
		return p.name
	}
	p := &period{y, m, t.Format("2006-01")}
	c.last.Store(p)
	return p.name
}

// Sink stores records. WriteUsage inserts each record whose ID is not yet
// stored and updates the daily rollups for exactly those, in one
// transaction; it returns how many were new. Writing the same record
// twice is harmless. recs is reused once WriteUsage returns.
type Sink interface {
	WriteUsage(ctx context.Context, recs []Record) (inserted int, err error)
}

// Price returns what the record's tokens cost at its prices: the cached
// prompt tokens at CachedPrice, the other prompt tokens at InputPrice and
// the completion tokens at OutputPrice (none for embeddings, which bill
// input only). Cached tokens are counted within the prompt tokens, never
// more than they.
func (r *Record) Price() usd.Amount {
	cached := min(max(r.CachedTokens, 0), r.PromptTokens)
	cost := usd.Cost(r.PromptTokens-cached, r.InputPrice) + usd.Cost(cached, r.CachedPrice)
	if r.Endpoint != provider.EndpointEmbedding.String() {
		cost += usd.Cost(r.CompletionTokens, r.OutputPrice)
	}
	return cost
}
