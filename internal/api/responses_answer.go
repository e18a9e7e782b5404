package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
	"github.com/switchyard-gw/switchyard/internal/sse"
)

// responseAnswer writes a Responses API answer, the gateway.Writer of
// POST /v1/responses: a whole Response object, or its stream of named
// events. What the client sees echoes what it asked (previous_response_id,
// store), though the upstream was sent a self-contained request, and a
// response the client asked to store is stored before the client has it
// whole, so that it can be continued at once.
type responseAnswer struct {
	answer
	store bool
	// row is what is stored with the answer (account, key, times, the
	// previous_response_id the client sent, echoed back to it);
	// turns are the whole input before it.
	row   StoredResponse
	turns []json.RawMessage

	// The stream's last sequence number sent, its response.created event,
	// and its terminal event, held back until the answer is stored.
	seq     int64
	created []byte
	held    []byte
}

var (
	_ gateway.Writer = (*responseAnswer)(nil)
	_ dialect        = (*responseAnswer)(nil)
)

// saveTimeout bounds storing one answer.
const saveTimeout = 5 * time.Second

// prepare readies a for a request of the caller in ctx, made at now:
// its stream's events go through a's own dialect.
func (a *responseAnswer) prepare(ctx context.Context, previousID string, store bool, now time.Time,
	retention time.Duration, turns []json.RawMessage) {
	p := principal(ctx)
	a.dialect = a
	a.store, a.turns = store, turns
	a.row = StoredResponse{AccountID: p.AccountID, KeyID: p.KeyID, CreatedAt: now, ExpiresAt: now.Add(retention),
		PreviousResponseID: previousID}
}

// Response stores and writes a whole answer.
func (a *responseAnswer) Response(resp *provider.Response, end gateway.Ender) {
	resp.Body = a.echo(resp.Body, "")
	a.save(resp.Body)
	a.answer.Response(resp, end)
}

// lifecycle lists the events that carry the Response object.
var lifecycle = map[string]bool{"response.created": true, "response.queued": true, "response.in_progress": true,
	"response.completed": true, "response.incomplete": true, "response.failed": true}

// writeError writes e in OpenAI's shape.
func (a *responseAnswer) writeError(w http.ResponseWriter, _ *http.Request, e *Error) {
	WriteError(w, e)
}

// event writes one event named by its type; a terminal one is held back
// for done.
func (a *responseAnswer) event(sw *sse.Writer, chunk []byte) error {
	typ := gjson.GetBytes(chunk, "type").Str
	if lifecycle[typ] {
		chunk = a.echo(chunk, "response.")
	}
	if typ == "response.created" {
		a.created = append(a.created[:0], chunk...)
	}
	if a.held != nil {
		// Something after the end: what was held goes first, unsaved.
		held := a.held
		a.held = nil
		if err := a.write(sw, held); err != nil {
			return err
		}
	}
	if typ == "response.completed" || typ == "response.incomplete" {
		a.held = append([]byte(nil), chunk...)
		return nil
	}
	return a.write(sw, chunk)
}

// done stores the answer and then sends its terminal event. The events
// still held go out before the save, which waits on the database.
func (a *responseAnswer) done(sw *sse.Writer) error {
	if a.held == nil {
		return nil
	}
	if a.storing() {
		if err := sw.Flush(); err != nil {
			return err
		}
	}
	a.save([]byte(gjson.GetBytes(a.held, "response").Raw))
	return a.write(sw, a.held)
}

// errorEvent ends a stream that failed after it started with an error
// event and response.failed.
func (a *responseAnswer) errorEvent(sw *sse.Writer, _ *http.Request, e *Error) error {
	a.held = nil
	for _, ev := range failedEvents(int(a.seq), a.created, e) {
		if err := a.write(sw, ev); err != nil {
			return err
		}
	}
	return nil
}

// write sends one event named by its type.
func (a *responseAnswer) write(sw *sse.Writer, ev []byte) error {
	typ := gjson.GetBytes(ev, "type").Str
	var err error
	if typ == "" {
		err = sw.Data(ev)
	} else {
		err = sw.Event(typ, ev)
	}
	if err == nil {
		if seq := gjson.GetBytes(ev, "sequence_number"); seq.Exists() {
			a.seq = seq.Int()
		}
	}
	return err
}

// echo sets the Response object at prefix in b to echo the client's
// previous_response_id and store.
func (a *responseAnswer) echo(b []byte, prefix string) []byte {
	prev := []byte("null")
	if id := a.row.PreviousResponseID; id != "" {
		prev, _ = json.Marshal(id)
	}
	out, err := sjson.SetRawBytes(b, prefix+"previous_response_id", prev)
	if err == nil {
		out, err = sjson.SetBytes(out, prefix+"store", a.store)
	}
	if err != nil {
		return b
	}
	return out
}

// storing reports whether the answer is to be stored.
func (a *responseAnswer) storing() bool { return a.store && a.h.opt.Responses != nil }

// save stores resp, a completed or incomplete Response object, when the
// client asked for it. A failure is logged and counted: the client
// still gets its answer, which then cannot be retrieved or continued.
func (a *responseAnswer) save(resp []byte) {
	if !a.storing() {
		return
	}
	r := gjson.ParseBytes(resp)
	if s := r.Get("status").Str; s != "completed" && s != "incomplete" {
		return
	}
	row := a.row
	row.ID, row.Model, row.Response = r.Get("id").Str, r.Get("model").Str, resp
	row.OutputItems = []byte(r.Get("output").Raw)
	if !r.Get("output").IsArray() {
		row.OutputItems = []byte("[]")
	}
	var err error
	if row.InputItems, err = itemsJSON(a.turns); err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(a.r.Context()), saveTimeout)
		err = a.h.opt.Responses.SaveResponse(ctx, row)
		cancel()
	}
	if err != nil {
		n := a.h.saveFailures.Add(1)
		a.h.opt.Log.Error("response not stored", "id", server.RecordFrom(a.r.Context()).ID, "response_id", row.ID,
			"failures", n, "err", err)
	}
}
