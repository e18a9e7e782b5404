package api

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// Issue 18: a streamed request holds its body until the stream ends, so
// whatever readBody keeps with it counts in the memory per open stream.
// The scanner that checked the body is done with by then and goes back
// at once; a held body costs little more than its bytes.
func TestReadBodyHoldsLittleBesideTheBody(t *testing.T) {
	h := New(Options{Auth: fakeAuth{}, Log: slog.New(slog.DiscardHandler)})
	const n, body = 2000, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	held := make([]*bodyBuf, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		_, buf, e := h.readBody(httptest.NewRecorder(), r)
		if e != nil {
			t.Fatal(e.Message)
		}
		held = append(held, buf)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	for _, buf := range held {
		buf.release()
	}
	// The request and its recorder are garbage by now; what stays is the
	// body's buffer and its pooled holder with the reader.
	if per > 1024 {
		t.Errorf("%d bytes held per body of %d bytes, want at most 1 KiB", per, len(body))
	}
}
