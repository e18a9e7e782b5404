package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAwaitSameEvents: waiting through Await before each Next changes
// none of the events or the error, however the input arrives.
func TestAwaitSameEvents(t *testing.T) {
	in := []byte("\xEF\xBB\xBFdata: a\n\nevent: e\r\ndata: b\r\ndata: c\r\r: comment\n\n" +
		"data: " + strings.Repeat("x", 3000) + "\n\nid: 1\ndata: last")
	want, wantErr := readAll(readers[0].wrap(in), 0)
	if len(want) == 0 {
		t.Fatal("no events to compare")
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			r := NewReader(rd.wrap(in), 0)
			var got []ev
			var err error
			for {
				r.Await()
				var e Event
				if e, err = r.Next(); err != nil {
					break
				}
				got = append(got, ev{e.Event, string(e.Data)})
			}
			if err == io.EOF {
				err = nil
			}
			if diff := cmp.Diff(want, got); diff != "" || err != wantErr {
				t.Errorf("events mismatch (-want +got):\n%s; error %v, want %v", diff, err, wantErr)
			}
		})
	}
}

// script is a stream that answers each Read with the next of its steps,
// then io.EOF, counting the reads.
type script struct {
	steps []step
	reads int
}

type step struct {
	data string
	err  error
}

func (s *script) Read(p []byte) (int, error) {
	s.reads++
	if len(s.steps) == 0 {
		return 0, io.EOF
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	return copy(p, st.data), st.err
}

// TestAwaitReads: Await reads the stream only when nothing is buffered,
// and what it reads (the next event, or the stream's error) is Next's,
// which reads no more.
func TestAwaitReads(t *testing.T) {
	boom := errors.New("boom")
	src := &script{steps: []step{{data: "data: a\n\ndata: b\n\n"}, {data: "data: c\n\n"}, {err: boom}}}
	r := NewReader(src, 0)
	var got []string
	var reads []int // the stream's reads after each Await, then after its Next
	for range 5 {
		r.Await()
		reads = append(reads, src.reads)
		e, err := r.Next()
		reads = append(reads, src.reads)
		if err != nil {
			got = append(got, "error: "+err.Error())
			continue
		}
		got = append(got, string(e.Data))
	}
	want := []string{"a", "b", "c", "error: boom", "error: boom"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	// a read by the first Await; none for b, which is buffered; one for c;
	// one meeting the error, which is not read again.
	if diff := cmp.Diff([]int{1, 1, 1, 1, 2, 2, 3, 3, 3, 3}, reads); diff != "" {
		t.Errorf("reads mismatch (-want +got):\n%s", diff)
	}
}

// empty is a stream whose reads return nothing and no error, counted.
type empty struct{ reads int }

func (e *empty) Read([]byte) (int, error) { e.reads++; return 0, nil }

// TestAwaitNoProgress: a stream that gives nothing, read after read, fails
// in Await with io.ErrNoProgress, and Next returns that error without
// reading the stream again.
func TestAwaitNoProgress(t *testing.T) {
	src := &empty{}
	r := NewReader(src, 0)
	defer r.Close()
	r.Await()
	reads := src.reads
	if _, err := r.Next(); err != io.ErrNoProgress {
		t.Errorf("Next: %v, want %v", err, io.ErrNoProgress)
	}
	if src.reads != reads {
		t.Errorf("Next read the stream %d times after Await's error", src.reads-reads)
	}
}
