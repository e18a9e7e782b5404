package api

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// reads is a stream as an upstream's body gives it, in reads of several
// events: before each read it runs the wait hook, as provider.Upstream's
// streams do, unless wait is nil (a stream not read from an upstream,
// such as the mock's). It starts with its first read done, as the
// gateway's attempt hands a stream over.
type reads struct {
	wait   func() error
	cur    []int   // what is left of the last read
	left   [][]int // the reads to come
	closed bool
}

func (s *reads) Next() ([]byte, error) {
	for len(s.cur) == 0 {
		if s.wait != nil {
			if err := s.wait(); err != nil {
				return nil, &provider.Error{Provider: "up", Kind: provider.KindCanceled, Err: err}
			}
		}
		if len(s.left) == 0 {
			return nil, io.EOF
		}
		s.cur, s.left = s.left[0], s.left[1:]
	}
	n := s.cur[0]
	s.cur = s.cur[1:]
	return []byte(`{"type":"t","n":` + strconv.Itoa(n) + `}`), nil
}

func (s *reads) Usage() provider.Usage { return provider.Usage{} }
func (s *reads) Close() error          { s.closed = true; return nil }

// flushes records the events of each flush: their n, -1 for [DONE].
type flushes struct {
	*httptest.ResponseRecorder
	got  [][]int
	sent int
	fail error // every flush fails with it once set
}

var eventN = regexp.MustCompile(`"n":(\d+)|\[DONE\]`)

func (f *flushes) FlushError() error {
	if f.fail != nil {
		return f.fail
	}
	var evs []int
	for _, m := range eventN.FindAllStringSubmatch(f.Body.String()[f.sent:], -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			n = -1
		}
		evs = append(evs, n)
	}
	f.sent = f.Body.Len()
	f.got = append(f.got, evs)
	return nil
}

// newStreamAnswer returns an answer of a stream to w, in d (nil: OpenAI's).
func newStreamAnswer(w http.ResponseWriter, d dialect) *answer {
	h := &Handler{opt: Options{Log: slog.New(slog.DiscardHandler)}}
	return &answer{h: h, w: w, r: httptest.NewRequest("POST", "/v1/chat/completions", nil), dialect: d}
}

// Issue 18: the events of one upstream read go out in one flush while an
// upstream's body is read through the wait hook, those of its first read
// (done before the stream reached the writer) included; every event of a
// stream that runs no hook is flushed on its own, even after an attempt
// that ran it and failed. Every dialect relays through Stream.
func TestStreamFlushPerRead(t *testing.T) {
	tests := []struct {
		name    string
		hooked  bool
		dialect dialect
		want    [][]int
	}{
		{"chat", true, nil, [][]int{{1, 2}, {3, 4, 5}, {6}, {-1}}},
		{"messages", true, messagesDialect{}, [][]int{{1, 2}, {3, 4, 5}, {6}}},
		{"no hook", false, nil, [][]int{{1}, {2}, {3}, {4}, {5}, {6}, {-1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &flushes{ResponseRecorder: httptest.NewRecorder()}
			a := newStreamAnswer(f, tt.dialect)
			// An attempt that failed after its first read.
			a.Wait()
			a.Reading(true)
			a.Wait()
			a.Reading(false)
			st := &reads{cur: []int{1, 2}, left: [][]int{{3, 4, 5}, {6}}}
			if tt.hooked {
				// This attempt's first read, before the stream reaches
				// the writer.
				a.Reading(true)
				st.wait = a.Wait
			}
			var out gateway.Outcome
			a.Stream(st, func(o gateway.Outcome) { out = o })
			if diff := cmp.Diff(tt.want, f.got); diff != "" {
				t.Errorf("events per flush mismatch (-want +got):\n%s", diff)
			}
			if out != (gateway.Outcome{Status: http.StatusOK}) || !st.closed {
				t.Errorf("outcome %+v, closed %v", out, st.closed)
			}
		})
	}
}

// A held flush that fails in the wait hook ends the request as a failed
// write does: the client went away (499, cancelled), no error event, no
// further read, the stream closed. The hook's first flush, which writes
// the response's head, runs on a goroutine of its own (Wait); its failure
// ends the request the same way.
func TestStreamHeldFlushFails(t *testing.T) {
	for _, left := range []int{2, 1} { // fail the first flush, the second
		t.Run(fmt.Sprintf("%d_reads_left", left), func(t *testing.T) {
			f := &flushes{ResponseRecorder: httptest.NewRecorder()}
			a := newStreamAnswer(f, nil)
			st := &reads{cur: []int{1}, left: [][]int{{2, 3}, {4}}}
			a.Reading(true)
			st.wait = func() error {
				if len(st.left) == left { // events are held
					f.fail = errors.New("client gone")
				}
				return a.Wait()
			}
			var out gateway.Outcome
			ends := 0
			a.Stream(st, func(o gateway.Outcome) { ends++; out = o })
			want := gateway.Outcome{Status: statusClientClosed, Cancelled: true}
			if out != want || ends != 1 {
				t.Errorf("outcome %+v (%d records), want %+v", out, ends, want)
			}
			if len(st.left) != left || !st.closed {
				t.Errorf("after the failed flush: %d reads left, want %d (no read); closed %v", len(st.left), left, st.closed)
			}
			if got := f.Body.String(); regexp.MustCompile(`error|\[DONE\]`).MatchString(got) {
				t.Errorf("wrote %q after the client went away", got)
			}
		})
	}
}
