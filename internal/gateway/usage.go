package gateway

import (
	"crypto/rand"
	"encoding/base32"
	"net/http"
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/route"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// Recorder takes usage records; neither method may block (meter.Meter).
type Recorder interface {
	// Record takes a request's record, once, when it ends.
	Record(r *meter.Record)
	// Progress journals the record a stream still under way would have
	// if it ended now, for a crash to leave behind; r is not kept.
	Progress(r *meter.Record)
}

// exchange is one request that reached a model: its routing state and
// the usage record it builds. With metering off the record only keeps
// the usage for the rate limits.
type exchange struct {
	g     *Gateway
	req   *Request
	rt    *route.Table
	allow route.Allow
	// requested is the model asked for (after a context-window fallback
	// chosen before any call, that one); model is the one whose prices
	// apply: the one that answered, or was tried last.
	requested *catalog.Model
	model     *catalog.Model
	// rec is the usage record, built up as the request goes. Between a
	// stream's first chunk and finish, the fields fill sets (status,
	// error type, cancelled, tokens, prices, cost, latency) hold chunk's
	// estimate of the stream's progress, not its outcome, and must not be
	// read; finish sets them all again.
	rec  meter.Record
	done bool
	// access is the request's access log record, given the record's
	// status, deployment and attempts so that both say the same.
	access *server.Record

	// A stream's progress: chunks sent, the prompt's size guessed from
	// the body (counting it would be too slow here), and when it was last
	// journaled, as the time since the request arrived.
	chunks     int64
	prompt     int64
	progressAt time.Duration

	// resp or stream is the answer written, whose usage is recorded.
	resp   *provider.Response
	stream provider.Stream
	// relay is the stream an attempt began, which Serve relays once the
	// attempts are over: from there the frames of the routing loop are
	// off the stack the stream waits on (issue 18).
	relay *relay

	// panic is set once every candidate was cooling down after failures
	// and the requested model's deployments are tried regardless.
	panic bool
	// left are the requested model's fallbacks not tried yet.
	left []string

	// hdr holds the values of the X-Switchyard-* headers (headers), rate
	// those of the x-ratelimit-* headers (setRateHeaders).
	hdr  [3]string
	rate [6]string

	// res is what the request took from its rate limits (admit). It
	// lives here, not in Serve's frame, which a stream keeps on its
	// stack while it waits (issue 18).
	res reservation
	// refund is set when the request failed by the gateway's own fault:
	// its rate-limit reservation is given back whole.
	refund bool
	// spans are the request's trace, when it is traced.
	spans spans
}

// progressInterval is how often a running stream journals its progress.
const progressInterval = 5 * time.Second

func (g *Gateway) newExchange(req *Request, rt *route.Table, m *catalog.Model, allow route.Allow) *exchange {
	p := req.Principal
	access := req.Access
	if access == nil {
		access = &server.Record{}
	}
	start := access.Start
	if start.IsZero() {
		start = time.Now()
	}
	d := rt.Deployments(m)[0] // until an attempt says otherwise
	x := &exchange{g: g, req: req, rt: rt, allow: allow, requested: m, model: m, access: access,
		prompt: int64(len(req.chatBody())/4 + 1), rec: meter.Record{
			ID: recordID(start), RequestID: access.ID, Time: start,
			AccountID: p.AccountID, KeyID: p.KeyID, Endpoint: req.Endpoint.String(),
			Model: m.ID, RequestedModel: req.Model, Provider: d.Provider.Name(), UpstreamModel: d.UpstreamID,
			PriceVersion: rt.PriceVersion(), Streamed: req.Stream,
		}}
	return x
}

// requestID is the request's ID for logs and upstreams.
func requestID(req *Request) string {
	if req.Access == nil {
		return ""
	}
	return req.Access.ID
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
	var r [7]byte // 56 random bits, 50 of them kept
	rand.Read(r[:])
	var s [12]byte // base 32 of 7 bytes, unpadded
	idChars.Encode(s[:], r[:])
	n += copy(b[n:], s[:10])
	return string(b[:n]) // the one allocation
}

// idChars spells the random part of a record ID: base 32 in lower case
// (crypto/rand.Text's alphabet, lowered).
var idChars = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// chunk notes a streamed chunk about to be sent. The first one sets the
// time to first chunk; it and then one every progressInterval journal the
// stream's progress before the chunk goes out, so that a stream a client
// has seen is recorded even if the process dies under it.
//
// The progress is the exchange's own record, filled as if the stream
// ended here (see rec for what that forbids until finish). A copy would
// be handed to the Recorder, an interface, and so escape: an allocation
// on every stream. One clock reading serves the time to first chunk, the
// interval and the latency.
func (x *exchange) chunk() {
	x.chunks++
	first := x.rec.TTFT == 0
	if x.done || !first && x.g.opt.Meter == nil {
		return // x.done: the record is the meter's now, not to be changed
	}
	since := time.Since(x.rec.Time)
	if first {
		x.rec.TTFT = max(since, time.Nanosecond)
	}
	if x.g.opt.Meter == nil || !first && since-x.progressAt < progressInterval {
		return
	}
	x.progressAt = since
	// The record of a stream cut here: status 200 sent, not complete,
	// a chunk counted as a token, the prompt guessed.
	x.fill(&x.rec, Outcome{Status: http.StatusOK, Cancelled: true},
		provider.Usage{PromptTokens: int(x.prompt), CompletionTokens: int(x.chunks), Estimated: true}, since)
	x.g.opt.Meter.Progress(&x.rec)
}

// End is the Ender of the exchange's Writer calls: it records the request
// with what the client was told and the usage of the answer that was
// written (none for an error).
func (x *exchange) End(o Outcome) {
	var us provider.Usage
	switch {
	case x.stream != nil:
		us = x.stream.Usage()
	case x.resp != nil:
		us = x.resp.Usage
	}
	x.finish(o, us)
}

// finish completes the record and hands it to the meter, once.
func (x *exchange) finish(o Outcome, us provider.Usage) {
	if x.done {
		return
	}
	x.done = true
	x.access.Status, x.access.ErrorType = o.Status, o.ErrType
	x.fill(&x.rec, o, us, time.Since(x.rec.Time))
	x.spans.finish(us)
	if x.g.opt.Meter != nil {
		sp := x.spans.meter()
		x.g.opt.Meter.Record(&x.rec)
		sp.close()
	}
	if o := x.g.opt.Observer; o != nil {
		o.Finished(&x.rec, us)
	}
}

// fill completes r with its outcome, usage, prices and cost, and its
// latency, the time since the request arrived.
func (x *exchange) fill(r *meter.Record, o Outcome, us provider.Usage, latency time.Duration) {
	r.Status, r.ErrorType, r.Cancelled = o.Status, o.ErrType, o.Cancelled
	r.PromptTokens, r.CompletionTokens = int64(us.PromptTokens), int64(us.CompletionTokens)
	r.TotalTokens, r.CachedTokens, r.Estimated = int64(us.TotalTokens), int64(us.CachedTokens), us.Estimated
	if r.TotalTokens == 0 {
		r.TotalTokens = r.PromptTokens + r.CompletionTokens
	}
	// The prompt's size picks the prices: some models charge a whole
	// request with a long prompt more.
	prices := x.model.PricesFor(r.PromptTokens)
	r.InputPrice, r.CachedPrice, r.OutputPrice = int64(prices.Input), int64(prices.Cached), int64(prices.Output)
	r.Cost = r.Price()
	r.Latency = latency
}

// abandon records a request whose handler ended without finishing its
// record (a panic): the client got a 500 or a cut connection.
func (x *exchange) abandon() {
	x.finish(Outcome{Status: http.StatusInternalServerError, ErrType: "server_error"}, provider.Usage{})
}

// noticeHeaders announces the retirement of the model that answers
// (RFC 9745 Deprecation, RFC 8594 Sunset).
func noticeHeaders(h http.Header, m *catalog.Model, now time.Time) {
	if !m.UnderNotice(now) {
		h.Del("Deprecation")
		h.Del("Sunset")
		return
	}
	if m.DeprecatedOn.IsZero() {
		h.Set("Deprecation", "true")
	} else {
		h.Set("Deprecation", "@"+strconv.FormatInt(m.DeprecatedOn.Unix(), 10))
	}
	if !m.SunsetOn.IsZero() {
		h.Set("Sunset", m.SunsetOn.UTC().Format(http.TimeFormat))
	}
}
