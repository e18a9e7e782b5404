package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// The wait hook runs before a stream's request and before each read of
// its body; when it fails, the request is not sent, or the read does not
// happen, and the failure is the client's: KindCanceled (issue 18).
func TestWaitHook(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		rc := http.NewResponseController(w)
		for _, ev := range []string{"data: 1\n\n", "data: 2\n\n"} {
			w.Write([]byte(ev))
			rc.Flush()
		}
	}))
	defer ts.Close()
	u := &Upstream{Name: "up", Client: ts.Client(), Header: http.Header{}, Timeout: 3 * time.Second}
	boom := errors.New("client gone")

	calls, failAt := 0, 0
	hook := func() error {
		calls++
		if calls == failAt {
			return boom
		}
		return nil
	}
	ctx := WithWaitHook(context.Background(), WaitFunc(hook))

	// The body read to its end: one call for the request, one per read.
	resp, cancel, err := u.Open(ctx, ts.URL, []byte("{}"), "")
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	buf := make([]byte, 64)
	for err == nil {
		reads++
		_, err = resp.Body.Read(buf)
	}
	if err != io.EOF {
		t.Fatalf("read: %v", err)
	}
	// Reads after the end (a drain) wait on nothing: no hook.
	if _, err := resp.Body.Read(buf); err != io.EOF {
		t.Errorf("read after the end: %v, want io.EOF", err)
	}
	resp.Body.Close()
	cancel()
	if calls != 1+reads {
		t.Errorf("hook ran %d times for a request and %d reads to the end, then one more, want %d", calls, reads, 1+reads)
	}

	// Failing before the request: nothing is sent.
	calls, failAt = 0, 1
	before := hits.Load()
	if _, _, err := u.Open(ctx, ts.URL, []byte("{}"), ""); !isCanceled(err, boom) {
		t.Errorf("Open with a failing hook = %v, want a KindCanceled Error wrapping %v", err, boom)
	}
	if hits.Load() != before {
		t.Error("the request was sent after the hook failed")
	}

	// Failing before the first read: it reads nothing.
	calls, failAt = 0, 2
	resp, cancel, err = u.Open(ctx, ts.URL, []byte("{}"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	defer resp.Body.Close()
	n, err := resp.Body.Read(buf)
	if n != 0 || !isCanceled(err, boom) {
		t.Errorf("Read with a failing hook = %d, %v; want 0 and a KindCanceled Error wrapping %v", n, err, boom)
	}
	if FromTransport(ctx, "up", err).Kind != KindCanceled {
		t.Error("FromTransport does not keep the hook's failure the client's")
	}
}

func isCanceled(err, cause error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Kind == KindCanceled && errors.Is(err, cause)
}

// Streams opened without a hook run none, and allocate nothing for it.
func TestWaitHookNone(t *testing.T) {
	if waitHookFrom(context.Background()) != nil {
		t.Error("a hook without WithWaitHook")
	}
	if n := testing.AllocsPerRun(100, func() { runWaitHook("up", nil) }); n != 0 {
		t.Errorf("runWaitHook(nil) allocates %v times", n)
	}
}

// readingHook notes what a stream tells its hook, in order: "wait",
// "reading", "closed".
type readingHook struct{ got []string }

func (h *readingHook) Wait() error { h.got = append(h.got, "wait"); return nil }
func (h *readingHook) Reading(on bool) {
	if on {
		h.got = append(h.got, "reading")
	} else {
		h.got = append(h.got, "closed")
	}
}

// The hook hears that a body is read at its first read, before that
// read's Wait, and that it is no longer read when it is closed, once; a
// stream whose request failed is never read.
func TestWaitHookReading(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, `{"error":{"message":"no"}}`, http.StatusBadRequest)
			return
		}
		w.Write([]byte("data: 1\n\n"))
	}))
	defer ts.Close()
	u := &Upstream{Name: "up", Client: ts.Client(), Header: http.Header{}, Timeout: 3 * time.Second}

	h := &readingHook{}
	ctx := WithWaitHook(context.Background(), h)
	resp, cancel, err := u.Open(ctx, ts.URL, []byte("{}"), "")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp.Body.Close()
	cancel()
	want := []string{"wait", "reading", "wait", "wait", "closed"}
	if len(h.got) < 4 || h.got[0] != "wait" || h.got[1] != "reading" || h.got[len(h.got)-1] != "closed" ||
		slices.Index(h.got[2:], "reading") >= 0 || slices.Index(h.got, "closed") != len(h.got)-1 {
		t.Errorf("the hook heard %v, want the shape of %v", h.got, want)
	}

	h.got = nil
	if _, _, err := u.Open(ctx, ts.URL+"/fail", []byte("{}"), ""); err == nil {
		t.Fatal("a 400 opened a stream")
	}
	if slices.Contains(h.got, "reading") || slices.Contains(h.got, "closed") {
		t.Errorf("a stream whose request failed: the hook heard %v, want only waits", h.got)
	}
}
