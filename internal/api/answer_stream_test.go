package api

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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
	wait func() error
	cur  []int   // what is left of the last read
	left [][]int // the reads to come
	// endInRead: the last read ends the stream (it holds the upstream's
	// [DONE]), so no wait comes before io.EOF.
	endInRead bool
	// ending, if set, runs before io.EOF is returned; closing, in Close,
	// as an upstream body's drain and close do.
	ending, closing func()
	closed          bool
}

func (s *reads) Next() ([]byte, error) {
	for len(s.cur) == 0 {
		if s.endInRead && len(s.left) == 0 {
			return nil, s.end()
		}
		if s.wait != nil {
			if err := s.wait(); err != nil {
				return nil, &provider.Error{Provider: "up", Kind: provider.KindCanceled, Err: err}
			}
		}
		if len(s.left) == 0 {
			return nil, s.end()
		}
		s.cur, s.left = s.left[0], s.left[1:]
	}
	n := s.cur[0]
	s.cur = s.cur[1:]
	return []byte(`{"type":"t","n":` + strconv.Itoa(n) + `}`), nil
}

func (s *reads) end() error {
	if s.ending != nil {
		s.ending()
	}
	return io.EOF
}

func (s *reads) Usage() provider.Usage { return provider.Usage{} }
func (s *reads) Close() error {
	if s.closing != nil {
		s.closing()
	}
	s.closed = true
	return nil
}

// flushes records the events of each flush: their n, -1 for [DONE].
type flushes struct {
	*httptest.ResponseRecorder
	got  [][]int
	sent int
	fail error // every flush fails with it once set
	bug  any   // every flush panics with it once set
}

var eventN = regexp.MustCompile(`"n":(\d+)|\[DONE\]`)

func (f *flushes) FlushError() error {
	if f.bug != nil {
		panic(f.bug)
	}
	if f.fail != nil {
		return f.fail
	}
	evs := f.held()
	f.sent = f.Body.Len()
	f.got = append(f.got, evs)
	return nil
}

// held returns the events written since the last flush, which net/http
// sends when the handler returns.
func (f *flushes) held() []int {
	var evs []int
	for _, m := range eventN.FindAllStringSubmatch(f.Body.String()[f.sent:], -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			n = -1
		}
		evs = append(evs, n)
	}
	return evs
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
// that ran it and failed. A completed stream's usage is recorded before
// [DONE] is written (atEnd: the flushes by then), and [DONE] goes out
// with the events of the upstream's last read when it ended the stream,
// in one flush, before the relay returns: nothing is left for the
// response's end (held), which waits on the rest of the request's work.
// Every dialect relays through Stream.
func TestStreamFlushPerRead(t *testing.T) {
	tests := []struct {
		name       string
		hooked     bool
		endInRead  bool // the last read has the upstream's end
		drainWaits bool // closing the stream waits for the rest of its body
		dialect    dialect
		want       [][]int // the relay's flushes
		held       []int   // events left for the response's end
		atEnd      [][]int
	}{
		{"chat", true, false, false, nil, [][]int{{1, 2}, {3, 4, 5}, {6}, {-1}}, nil, [][]int{{1, 2}, {3, 4, 5}, {6}}},
		{"chat, end in the last read", true, true, false, nil, [][]int{{1, 2}, {3, 4, 5}, {6, -1}}, nil, [][]int{{1, 2}, {3, 4, 5}}},
		{"chat, the drain waits", true, true, true, nil, [][]int{{1, 2}, {3, 4, 5}, {6, -1}}, nil, [][]int{{1, 2}, {3, 4, 5}}},
		{"messages", true, false, false, messagesDialect{}, [][]int{{1, 2}, {3, 4, 5}, {6}}, nil, [][]int{{1, 2}, {3, 4, 5}, {6}}},
		{"messages, end in the last read", true, true, false, messagesDialect{}, [][]int{{1, 2}, {3, 4, 5}, {6}}, nil, [][]int{{1, 2}, {3, 4, 5}}},
		{"no hook", false, false, false, nil, [][]int{{1}, {2}, {3}, {4}, {5}, {6}, {-1}}, nil, [][]int{{1}, {2}, {3}, {4}, {5}, {6}}},
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
			st := &reads{cur: []int{1, 2}, left: [][]int{{3, 4, 5}, {6}}, endInRead: tt.endInRead}
			if tt.hooked {
				// This attempt's first read, before the stream reaches
				// the writer.
				a.Reading(true)
				st.wait = a.Wait
				st.closing = func() {
					if tt.drainWaits {
						a.Wait()
					}
					a.Reading(false)
				}
			}
			var out gateway.Outcome
			var atEnd [][]int
			a.Stream(st, gateway.EndFunc(func(o gateway.Outcome) { out, atEnd = o, append([][]int(nil), f.got...) }))
			if diff := cmp.Diff(tt.want, f.got); diff != "" {
				t.Errorf("events per flush mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.held, f.held()); diff != "" {
				t.Errorf("events left for the response's end mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.atEnd, atEnd); diff != "" {
				t.Errorf("events flushed when the usage was recorded mismatch (-want +got):\n%s", diff)
			}
			if out != (gateway.Outcome{Status: http.StatusOK}) || !st.closed {
				t.Errorf("outcome %+v, closed %v", out, st.closed)
			}
		})
	}
}

// A held flush that fails ends the request as a failed write does: the
// client went away (499, cancelled), no error event, no [DONE], no
// further read, the stream closed. It may fail in the wait hook, or just
// before the end of the stream (its body closed: Reading(false)), when
// the stream must not be recorded as complete. The hook's first flush,
// which writes the response's head, runs on a goroutine of its own
// (Wait); its failure ends the request the same way.
func TestStreamHeldFlushFails(t *testing.T) {
	gone := errors.New("client gone")
	tests := []struct {
		name     string
		st       func(a *answer, f *flushes) *reads
		wantLeft int // reads not done
	}{
		{"in the wait hook's first flush", func(a *answer, f *flushes) *reads {
			st := &reads{cur: []int{1}, left: [][]int{{2, 3}, {4}}}
			st.wait = func() error {
				if len(st.left) == 2 { // event 1 is held
					f.fail = gone
				}
				return a.Wait()
			}
			return st
		}, 2},
		{"in the wait hook", func(a *answer, f *flushes) *reads {
			st := &reads{cur: []int{1}, left: [][]int{{2, 3}, {4}}}
			st.wait = func() error {
				if len(st.left) == 1 { // events 2 and 3 are held
					f.fail = gone
				}
				return a.Wait()
			}
			return st
		}, 1},
		{"before the end", func(a *answer, f *flushes) *reads {
			st := &reads{cur: []int{1}, left: [][]int{{2, 3}}, endInRead: true, wait: a.Wait}
			st.ending = func() {
				f.fail = gone
				a.Reading(false)
			}
			return st
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &flushes{ResponseRecorder: httptest.NewRecorder()}
			a := newStreamAnswer(f, nil)
			a.Reading(true)
			st := tt.st(a, f)
			var out gateway.Outcome
			ends := 0
			a.Stream(st, gateway.EndFunc(func(o gateway.Outcome) { ends++; out = o }))
			want := gateway.Outcome{Status: statusClientClosed, Cancelled: true}
			if out != want || ends != 1 {
				t.Errorf("outcome %+v (%d records), want %+v", out, ends, want)
			}
			if len(st.left) != tt.wantLeft || !st.closed {
				t.Errorf("after the failed flush: %d reads left, want %d; closed %v", len(st.left), tt.wantLeft, st.closed)
			}
			if got := f.Body.String(); regexp.MustCompile(`error|\[DONE\]`).MatchString(got) {
				t.Errorf("wrote %q after the client went away", got)
			}
		})
	}
}

// The wait hook's first flush runs on a goroutine of its own (Wait); a
// panic in it is raised again on the caller's, where the server's
// recovery sees it, rather than ending the process.
func TestStreamFirstFlushPanicReachesCaller(t *testing.T) {
	f := &flushes{ResponseRecorder: httptest.NewRecorder(), bug: "writer bug"}
	a := newStreamAnswer(f, nil)
	a.Reading(true)
	st := &reads{cur: []int{1}, left: [][]int{{2}}, wait: a.Wait}
	defer func() {
		if p := recover(); p != "writer bug" {
			t.Errorf("recovered %v, want the flush's panic", p)
		}
	}()
	a.Stream(st, gateway.EndFunc(func(gateway.Outcome) {}))
	t.Error("Stream returned after its flush panicked")
}

// deadlines is a client connection that records the write deadlines set.
type deadlines struct {
	*flushes
	set []time.Duration // after the clock's start
	now time.Time
}

func (d *deadlines) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t.Sub(time.Unix(0, 0)))
	return nil
}

// Issue 18: a stream sets the client's write deadline again only when
// the one it set is a second old (deadlineSlack): a minute for each
// write, give or take that second, without a move of the poller's timer
// for each upstream read.
func TestStreamWriteDeadlineRefreshed(t *testing.T) {
	d := &deadlines{flushes: &flushes{ResponseRecorder: httptest.NewRecorder()}, now: time.Unix(0, 0)}
	a := newStreamAnswer(d, nil)
	a.out.now = func() time.Time { return d.now }
	a.Reading(true)
	// Each upstream read comes 400ms after the last.
	st := &reads{cur: []int{1}, left: [][]int{{2}, {3}, {4}, {5}}}
	st.wait = func() error {
		d.now = d.now.Add(400 * time.Millisecond)
		return a.Wait()
	}
	st.closing = func() { a.Reading(false) }
	a.Stream(st, gateway.EndFunc(func(gateway.Outcome) {}))
	// Set at 0 for event 1, kept for events 2 and 3 (0.4s, 0.8s), set
	// at 1.2s for event 4, kept for event 5 (1.6s) and [DONE] (2s).
	want := []time.Duration{time.Minute, time.Minute + 1200*time.Millisecond}
	if diff := cmp.Diff(want, d.set); diff != "" {
		t.Errorf("write deadlines set mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]int{{1}, {2}, {3}, {4}, {5}, {-1}}, d.got); diff != "" {
		t.Errorf("events per flush mismatch (-want +got):\n%s", diff)
	}
}

// flushedOn records the goroutine of each flush.
type flushedOn struct {
	*flushes
	on []string
}

func (f *flushedOn) FlushError() error {
	f.on = append(f.on, goroutine())
	return f.flushes.FlushError()
}

// goroutine returns the calling goroutine's number.
func goroutine() string {
	b := make([]byte, 64)
	return strings.Fields(string(b[:runtime.Stack(b, false)]))[1]
}

// Issue 18: a stream that cannot wait apart from Next (no
// provider.Awaiter) waits deep under Next, so the wait hook sends the
// response's head from a goroutine of its own; the later flushes, and
// which events go in each, are as with a stream that waits in Await.
func TestStreamHeadFlushedBeforeRead(t *testing.T) {
	f := &flushedOn{flushes: &flushes{ResponseRecorder: httptest.NewRecorder()}}
	a := newStreamAnswer(f, nil)
	a.Reading(true)
	st := &reads{cur: []int{1, 2}, left: [][]int{{3, 4, 5}, {6}}, wait: a.Wait}
	a.Stream(st, gateway.EndFunc(func(gateway.Outcome) {}))
	if diff := cmp.Diff([][]int{{1, 2}, {3, 4, 5}, {6}, {-1}}, f.got); diff != "" {
		t.Errorf("events per flush mismatch (-want +got):\n%s", diff)
	}
	if f.on[0] == goroutine() {
		t.Error("head flushed on the relay's goroutine, deep under Next")
	}
	for i, g := range f.on[1:] {
		if g != goroutine() {
			t.Errorf("flush %d on another goroutine", i+2)
		}
	}
}
