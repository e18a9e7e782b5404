package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// awaits is reads whose waits for a read of the body happen in Await
// (provider.Awaiter), as OpenAI's streams' do: Next then finds the read
// done, or the wait's failure, which it returns without waiting again.
// It notes, for each wait, whether Await ran it.
type awaits struct {
	reads
	inAwait []bool
	err     error // the failure of Await's wait, for Next
}

var _ provider.Awaiter = (*awaits)(nil)

func (s *awaits) Await() {
	if len(s.cur) > 0 || len(s.left) == 0 {
		return
	}
	if err := s.wait(); err != nil {
		s.err = &provider.Error{Provider: "up", Kind: provider.KindCanceled, Err: err}
		return
	}
	s.inAwait = append(s.inAwait, true)
	s.cur, s.left = s.left[0], s.left[1:]
}

func (s *awaits) Next() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.reads.Next()
}

// Issue 18: a stream that can wait apart from Next (provider.Awaiter)
// waits for each read in Await, from Stream's frame rather than under
// Next's, and its events go out as they would otherwise: those of one
// read in one flush. The response's head goes out in the first of those
// waits, from the relay's goroutine: Await's frames are shallow, and no
// goroutine is started for it.
func TestStreamWaitsInAwait(t *testing.T) {
	f := &flushedOn{flushes: &flushes{ResponseRecorder: httptest.NewRecorder()}}
	a := newStreamAnswer(f, nil)
	a.Reading(true)
	st := &awaits{reads: reads{cur: []int{1, 2}, left: [][]int{{3, 4, 5}, {6}}}}
	st.wait = func() error {
		st.inAwait = append(st.inAwait, false)
		return a.Wait()
	}
	st.closing = func() { a.Reading(false) }
	var out gateway.Outcome
	a.Stream(st, gateway.EndFunc(func(o gateway.Outcome) { out = o }))
	if diff := cmp.Diff([][]int{{1, 2}, {3, 4, 5}, {6}, {-1}}, f.got); diff != "" {
		t.Errorf("events per flush mismatch (-want +got):\n%s", diff)
	}
	// Each wait notes false, then true when Await ran it; the last, for
	// the end of the body, is Next's.
	if diff := cmp.Diff([]bool{false, true, false, true, false}, st.inAwait); diff != "" {
		t.Errorf("waits mismatch (-want +got):\n%s", diff)
	}
	for i, g := range f.on {
		if g != goroutine() {
			t.Errorf("flush %d on another goroutine", i+1)
		}
	}
	if out != (gateway.Outcome{Status: http.StatusOK}) || !st.closed {
		t.Errorf("outcome %+v, closed %v", out, st.closed)
	}
}

// A client that leaves while the stream waits in Await (the wait hook's
// flush fails) ends the request once, as gone (499), without a second
// wait: Next returns the failure Await met.
func TestStreamClientGoneInAwait(t *testing.T) {
	f := &flushes{ResponseRecorder: httptest.NewRecorder(), fail: errors.New("client gone")}
	a := newStreamAnswer(f, nil)
	a.Reading(true)
	st := &awaits{reads: reads{cur: []int{1, 2}, left: [][]int{{3}}}}
	waits := 0
	st.wait = func() error {
		waits++
		return a.Wait()
	}
	st.closing = func() { a.Reading(false) }
	var out gateway.Outcome
	ends := 0
	a.Stream(st, gateway.EndFunc(func(o gateway.Outcome) { ends++; out = o }))
	want := gateway.Outcome{Status: statusClientClosed, Cancelled: true}
	if out != want || ends != 1 || waits != 1 {
		t.Errorf("outcome %+v, %d records, %d waits; want %+v, 1 record, 1 wait", out, ends, waits, want)
	}
	if len(st.left) != 1 || !st.closed {
		t.Errorf("%d reads left, want 1; closed %v", len(st.left), st.closed)
	}
}
