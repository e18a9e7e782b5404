package sse

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewWriterHeaders(t *testing.T) {
	tests := []struct {
		name  string
		major int
		want  http.Header
	}{
		{"http1", 1, http.Header{
			"Content-Type":      {"text/event-stream"},
			"Cache-Control":     {"no-cache"},
			"X-Accel-Buffering": {"no"},
			"Connection":        {"keep-alive"},
		}},
		{"http2", 2, http.Header{
			"Content-Type":      {"text/event-stream"},
			"Cache-Control":     {"no-cache"},
			"X-Accel-Buffering": {"no"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
			req.ProtoMajor = tt.major
			rec := httptest.NewRecorder()
			w := NewWriter(rec, req)
			if diff := cmp.Diff(tt.want, rec.Header()); diff != "" {
				t.Errorf("headers mismatch (-want +got):\n%s", diff)
			}
			if w.Started() || rec.Flushed || rec.Body.Len() != 0 {
				t.Fatalf("NewWriter wrote: Started %v, Flushed %v, body %q", w.Started(), rec.Flushed, rec.Body)
			}
			// The status is still the caller's to choose.
			rec.WriteHeader(http.StatusBadGateway)
			if rec.Code != http.StatusBadGateway {
				t.Errorf("status = %d after NewWriter and WriteHeader(502)", rec.Code)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name    string
		write   func(*Writer) error
		want    string // bytes written by this step
		wantErr bool
	}{
		{"data", func(w *Writer) error { return w.Data([]byte(`{"a":1}`)) }, "data: {\"a\":1}\n\n", false},
		{"empty_data", func(w *Writer) error { return w.Data(nil) }, "data: \n\n", false},
		{"data_with_lf", func(w *Writer) error { return w.Data([]byte("a\nb")) }, "", true},
		{"data_with_cr", func(w *Writer) error { return w.Data([]byte("a\rb")) }, "", true},
		{"comment", func(w *Writer) error { return w.Comment("keep-alive") }, ": keep-alive\n\n", false},
		{"empty_comment", func(w *Writer) error { return w.Comment("") }, ": \n\n", false},
		{"comment_with_lf", func(w *Writer) error { return w.Comment("a\nb") }, "", true},
		{"done", func(w *Writer) error { return w.Done() }, "data: [DONE]\n\n", false},
		{"event", func(w *Writer) error { return w.Event("message_stop", []byte(`{"type":"message_stop"}`)) },
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", false},
		{"event_name_with_lf", func(w *Writer) error { return w.Event("a\nb", []byte(`{}`)) }, "", true},
		{"event_data_with_cr", func(w *Writer) error { return w.Event("ping", []byte("a\rb")) }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := NewWriter(rec, httptest.NewRequest("POST", "/", nil))
			err := tt.write(w)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("wrote %q, want %q", got, tt.want)
			}
			if w.Started() != !tt.wantErr || rec.Flushed != !tt.wantErr {
				t.Errorf("Started %v, Flushed %v; want both %v", w.Started(), rec.Flushed, !tt.wantErr)
			}
		})
	}
}

// TestWriterFlushEach checks that every event is flushed as it is written.
func TestWriterFlushEach(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, httptest.NewRequest("POST", "/", nil))
	steps := []struct {
		write func() error
		want  string
	}{
		{func() error { return w.Comment("keep-alive") }, ": keep-alive\n\n"},
		{func() error { return w.Data([]byte(`{"n":1}`)) }, `data: {"n":1}` + "\n\n"},
		{func() error { return w.Data([]byte(`{"n":2}`)) }, `data: {"n":2}` + "\n\n"},
		{func() error { return w.Done() }, "data: [DONE]\n\n"},
	}
	for i, s := range steps {
		rec.Flushed = false
		before := rec.Body.Len()
		if err := s.write(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !rec.Flushed {
			t.Errorf("step %d: not flushed", i)
		}
		if got := rec.Body.String()[before:]; got != s.want {
			t.Errorf("step %d: wrote %q, want %q", i, got, s.want)
		}
	}
}

// flushCounter records what reached the client: the bytes of each flush.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes []string
	sent    int
}

func (f *flushCounter) Flush() {
	f.ResponseRecorder.Flush()
	f.flushes = append(f.flushes, f.Body.String()[f.sent:])
	f.sent = f.Body.Len()
}

// TestWriterHold checks that held events wait for Flush and go out
// together, that a Flush with nothing held flushes nothing, and that
// events before Hold are flushed one by one (issue 18).
func TestWriterHold(t *testing.T) {
	f := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(f, httptest.NewRequest("POST", "/", nil))
	step := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step(w.Data([]byte(`{"n":1}`)))
	if w.Pending() {
		t.Error("Pending after a write before Hold")
	}
	w.Hold(true)
	step(w.Flush()) // nothing held: no flush
	step(w.Data([]byte(`{"n":2}`)))
	step(w.Event("e", []byte(`{"n":3}`)))
	if !w.Pending() {
		t.Error("Pending = false with two events held")
	}
	if len(f.flushes) != 1 {
		t.Fatalf("held events flushed: %q", f.flushes)
	}
	step(w.Flush())
	step(w.Flush())
	step(w.Done())
	step(w.Flush())
	want := []string{
		"data: {\"n\":1}\n\n",
		"data: {\"n\":2}\n\nevent: e\ndata: {\"n\":3}\n\n",
		"data: [DONE]\n\n",
	}
	if diff := cmp.Diff(want, f.flushes); diff != "" {
		t.Errorf("flushes mismatch (-want +got):\n%s", diff)
	}
	if w.Pending() {
		t.Error("Pending after Flush")
	}
}

// failFlush is a ResponseWriter whose flushes fail: its client has gone
// while events were held.
type failFlush struct {
	*httptest.ResponseRecorder
	err error
}

func (f failFlush) FlushError() error { return f.err }

// A held flush that fails is the error of every later write and flush,
// which write nothing more.
func TestWriterHoldFlushErrorSticks(t *testing.T) {
	boom := errors.New("boom")
	rec := httptest.NewRecorder()
	w := NewWriter(failFlush{rec, boom}, httptest.NewRequest("POST", "/", nil))
	w.Hold(true)
	if err := w.Data([]byte(`{"n":1}`)); err != nil {
		t.Fatalf("held write: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush = %v, want %v", err, boom)
	}
	n := rec.Body.Len()
	for name, err := range map[string]error{
		"Data": w.Data([]byte(`{"n":2}`)), "Event": w.Event("e", nil), "Done": w.Done(), "Flush": w.Flush(),
	} {
		if !errors.Is(err, boom) {
			t.Errorf("%s after a failed flush = %v, want %v", name, err, boom)
		}
	}
	if rec.Body.Len() != n {
		t.Errorf("wrote %q after a failed flush", rec.Body.String()[n:])
	}
}

// unwrapper hides its ResponseWriter's Flush method but offers Unwrap, like
// the gateway's middleware wrappers.
type unwrapper struct{ rw http.ResponseWriter }

func (u unwrapper) Header() http.Header         { return u.rw.Header() }
func (u unwrapper) Write(b []byte) (int, error) { return u.rw.Write(b) }
func (u unwrapper) WriteHeader(code int)        { u.rw.WriteHeader(code) }
func (u unwrapper) Unwrap() http.ResponseWriter { return u.rw }

// noFlush is a ResponseWriter that cannot flush.
type noFlush struct{}

func (noFlush) Header() http.Header         { return http.Header{} }
func (noFlush) Write(b []byte) (int, error) { return len(b), nil }
func (noFlush) WriteHeader(int)             {}

// failWriter is a ResponseWriter whose client has gone.
type failWriter struct{ err error }

func (f failWriter) Header() http.Header       { return http.Header{} }
func (f failWriter) Write([]byte) (int, error) { return 0, f.err }
func (f failWriter) WriteHeader(int)           {}
func (f failWriter) Flush()                    {}

func TestWriterErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		rw      func() (http.ResponseWriter, *httptest.ResponseRecorder)
		wantErr error
	}{
		{"flush_through_unwrap", func() (http.ResponseWriter, *httptest.ResponseRecorder) {
			rec := httptest.NewRecorder()
			return unwrapper{rec}, rec
		}, nil},
		{"flush_not_supported", func() (http.ResponseWriter, *httptest.ResponseRecorder) {
			return noFlush{}, nil
		}, http.ErrNotSupported},
		{"write_fails", func() (http.ResponseWriter, *httptest.ResponseRecorder) {
			return failWriter{boom}, nil
		}, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw, rec := tt.rw()
			w := NewWriter(rw, httptest.NewRequest("POST", "/", nil))
			err := w.Data([]byte("{}"))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if !w.Started() {
				t.Error("Started = false after a write attempt")
			}
			if rec != nil && (!rec.Flushed || rec.Body.String() != "data: {}\n\n") {
				t.Errorf("through Unwrap: Flushed %v, body %q", rec.Flushed, rec.Body)
			}
		})
	}
}

// TestRoundTrip streams through a real server and parses the result back.
func TestRoundTrip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := NewWriter(rw, r)
		err := errors.Join(
			w.Comment("keep-alive"),
			w.Data([]byte(`{"n":1}`)),
			w.Data([]byte(`{"n":2}`)),
			w.Done(),
		)
		if err != nil {
			t.Errorf("handler: %v", err)
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	got, err := readAll(resp.Body, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []ev{{"", `{"n":1}`}, {"", `{"n":2}`}, {"", "[DONE]"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

// deadlineRecorder is a ResponseWriter that notes its write deadlines;
// unwrapped hides it behind a middleware's wrapper.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	got []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.got = append(d.got, t)
	return nil
}

type unwrapped struct{ http.ResponseWriter }

func (u unwrapped) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// SetWriteDeadline reaches the connection's writer through the wrappers
// that implement Unwrap, as the relay's refresh of a slow client's minute
// needs; a writer without deadlines says so.
func TestWriterSetWriteDeadline(t *testing.T) {
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(unwrapped{rec}, nil)
	at := time.Unix(1754929200, 0)
	if err := w.SetWriteDeadline(at); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Time{at}, rec.got); diff != "" {
		t.Errorf("deadlines mismatch (-want +got):\n%s", diff)
	}
	if err := NewWriter(httptest.NewRecorder(), nil).SetWriteDeadline(at); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("SetWriteDeadline on a writer without deadlines = %v, want http.ErrNotSupported", err)
	}
}
