package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/auth"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// fixedStream is a stream of fixed events, then err (io.EOF for a clean end).
type fixedStream struct {
	events []string
	err    error
}

func (s *fixedStream) Next() ([]byte, error) {
	if len(s.events) == 0 {
		return nil, s.err
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return []byte(ev), nil
}
func (s *fixedStream) Usage() provider.Usage { return provider.Usage{} }
func (s *fixedStream) Close() error          { return nil }

// seenStore keeps what it is asked to save, with what the client had
// received by then.
type seenStore struct {
	rec    *httptest.ResponseRecorder
	saved  []StoredResponse
	before []string // the client's body at each save
	fail   error
	onSave func() // if set, runs at each save
}

func (s *seenStore) SaveResponse(_ context.Context, r StoredResponse) error {
	if s.onSave != nil {
		s.onSave()
	}
	s.saved = append(s.saved, r)
	s.before = append(s.before, s.rec.Body.String())
	return s.fail
}
func (s *seenStore) Response(context.Context, string, string) (StoredResponse, error) {
	return StoredResponse{}, ErrResponseNotFound
}
func (s *seenStore) DeleteResponse(context.Context, string, string) error { return ErrResponseNotFound }

const (
	evCreated   = `{"type":"response.created","sequence_number":0,"response":{"id":"resp_up","status":"in_progress","previous_response_id":null,"store":false,"output":[]}}`
	evDelta     = `{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`
	evCompleted = `{"type":"response.completed","sequence_number":2,"response":{"id":"resp_up","model":"gpt-x","status":"completed","previous_response_id":null,"store":false,"output":[{"id":"msg_1","type":"message"}]}}`
)

// testTime is when the tests' requests are made.
var testTime = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// newResponseAnswer returns a writer for a request continuing resp_prev,
// recorded in rec, and its store.
func newResponseAnswer(store bool) (*responseAnswer, *httptest.ResponseRecorder, *seenStore) {
	rec := httptest.NewRecorder()
	st := &seenStore{rec: rec}
	h := New(Options{Log: slog.New(slog.DiscardHandler), Responses: st})
	r := httptest.NewRequest("POST", "/v1/responses", nil)
	r = r.WithContext(server.NewContext(r.Context(), &server.Record{Principal: auth.Principal{AccountID: "acct_1", KeyID: "key_1"}}))
	a := &responseAnswer{}
	a.bind(h, rec, r)
	a.prepare(r.Context(), "resp_prev", store, testTime, h.opt.ResponseRetention, nil)
	return a, rec, st
}

// streamEvents splits a recorded stream into its events' names.
func streamEvents(t *testing.T, body string) ([]string, []gjson.Result) {
	t.Helper()
	var names []string
	var data []gjson.Result
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		name, d, ok := strings.Cut(ev, "\ndata: ")
		if !ok || !strings.HasPrefix(name, "event: ") {
			t.Fatalf("event %q is not framed as event: + data:", ev)
		}
		names = append(names, strings.TrimPrefix(name, "event: "))
		data = append(data, gjson.Parse(d))
	}
	return names, data
}

// TestResponseStreamStoresFirst: the answer is stored and recorded before
// its terminal event leaves, and the lifecycle events echo the client's
// previous_response_id and store.
func TestResponseStreamStoresFirst(t *testing.T) {
	a, rec, st := newResponseAnswer(true)
	var ended []string
	a.Stream(&fixedStream{events: []string{evCreated, evDelta, evCompleted}, err: io.EOF}, gateway.EndFunc(func(o gateway.Outcome) {
		ended = append(ended, rec.Body.String())
	}))
	names, data := streamEvents(t, rec.Body.String())
	if diff := cmp.Diff([]string{"response.created", "response.output_text.delta", "response.completed"}, names); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for _, i := range []int{0, 2} {
		if data[i].Get("response.previous_response_id").Str != "resp_prev" || !data[i].Get("response.store").Bool() {
			t.Errorf("%s does not echo the request: %s", names[i], data[i].Raw)
		}
	}
	if len(st.saved) != 1 || len(ended) != 1 {
		t.Fatalf("saved %d times, ended %d times; want once each", len(st.saved), len(ended))
	}
	if strings.Contains(st.before[0], "response.completed") || strings.Contains(ended[0], "response.completed") {
		t.Errorf("the client had response.completed before the answer was stored and recorded")
	}
	s := st.saved[0]
	if s.ID != "resp_up" || s.AccountID != "acct_1" || s.KeyID != "key_1" || s.Model != "gpt-x" ||
		s.PreviousResponseID != "resp_prev" || string(s.OutputItems) != `[{"id":"msg_1","type":"message"}]` ||
		string(s.InputItems) != "[]" || string(s.Response) != data[2].Get("response").Raw ||
		!s.ExpiresAt.Equal(testTime.Add(720*time.Hour)) {
		t.Errorf("stored %+v", s)
	}
}

// TestResponseStreamFlushesBeforeSave: with its events held (an
// upstream's body read through the wait hook), a stream to be stored
// flushes them before the save, which waits on the database; its
// terminal event follows the save.
func TestResponseStreamFlushesBeforeSave(t *testing.T) {
	a, rec, st := newResponseAnswer(true)
	f := &flushes{ResponseRecorder: rec}
	a.bind(a.h, f, a.r)
	a.Reading(true)
	var atSave string
	st.onSave = func() { atSave = f.Body.String()[:f.sent] }
	a.Stream(&fixedStream{events: []string{evCreated, evDelta, evCompleted}, err: io.EOF}, gateway.EndFunc(func(gateway.Outcome) {}))
	if !strings.Contains(atSave, "response.output_text.delta") || strings.Contains(atSave, "response.completed") {
		t.Errorf("flushed when the answer was stored: %q; want the events before response.completed", atSave)
	}
	if names, _ := streamEvents(t, rec.Body.String()); len(names) != 3 {
		t.Errorf("events %v, want 3", names)
	}
}

// TestResponseStreamFailure: a failure after the stream started ends it
// with error and response.failed numbered after the last event sent,
// even when the terminal event had arrived; nothing is stored.
func TestResponseStreamFailure(t *testing.T) {
	a, rec, st := newResponseAnswer(true)
	var outcomes []gateway.Outcome
	up := &provider.Error{Provider: "openai", Kind: provider.KindUnavailable, Err: errors.New("boom")}
	a.Stream(&fixedStream{events: []string{evCreated, evDelta, evCompleted}, err: up}, gateway.EndFunc(func(o gateway.Outcome) {
		outcomes = append(outcomes, o)
	}))
	names, data := streamEvents(t, rec.Body.String())
	if diff := cmp.Diff([]string{"response.created", "response.output_text.delta", "error", "response.failed"}, names); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if data[2].Get("sequence_number").Int() != 2 || data[3].Get("sequence_number").Int() != 3 ||
		data[3].Get("response.status").Str != "failed" || data[3].Get("response.id").Str != "resp_up" {
		t.Errorf("failure events %s %s", data[2].Raw, data[3].Raw)
	}
	if len(st.saved) != 0 || len(outcomes) != 1 || outcomes[0].Status != http.StatusBadGateway {
		t.Errorf("saved %d, outcomes %+v", len(st.saved), outcomes)
	}
}

// TestResponseWhole: a whole answer echoes the request and is stored
// unless store is false; a failed save still answers, and is counted.
func TestResponseWhole(t *testing.T) {
	body := gjson.Get(evCompleted, "response").Raw
	for _, tt := range []struct {
		name      string
		store     bool
		fail      error
		wantSaved int
	}{
		{"stored", true, nil, 1},
		{"store false", false, nil, 0},
		{"save fails", true, errors.New("disk full"), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, rec, st := newResponseAnswer(tt.store)
			st.fail = tt.fail
			ended := 0
			a.Response(&provider.Response{Body: []byte(body)}, gateway.EndFunc(func(gateway.Outcome) { ended++ }))
			got := gjson.Parse(rec.Body.String())
			if rec.Code != 200 || ended != 1 || got.Get("previous_response_id").Str != "resp_prev" || got.Get("store").Bool() != tt.store {
				t.Errorf("%d, ended %d: %s", rec.Code, ended, rec.Body)
			}
			if len(st.saved) != tt.wantSaved || tt.wantSaved > 0 && st.before[0] != "" {
				t.Errorf("saved %d times (want %d), the client had %q by then", len(st.saved), tt.wantSaved, st.before)
			}
			if want := map[bool]int64{true: 1}[tt.fail != nil]; a.h.ResponseSaveFailures() != want {
				t.Errorf("save failures %d, want %d", a.h.ResponseSaveFailures(), want)
			}
		})
	}
}
