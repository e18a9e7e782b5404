package provider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 18: an open stream holds its upstream connection, and with it the
// transport's read and write buffers, for its whole life; at 32 KiB each
// they were most of the gateway's memory per open stream. The budget is
// 32 KB of resident memory per open stream in all. The write buffer serves
// only the request, written once at the stream's start: 1 KiB holds its
// header, and a bigger body is written around the buffer.
func TestTransportBuffersFitStreamBudget(t *testing.T) {
	tr := NewTransport(0)
	if got := tr.ReadBufferSize + tr.WriteBufferSize; got > 5<<10 {
		t.Errorf("read %d + write %d bytes of buffer per upstream connection, want at most 5 KiB",
			tr.ReadBufferSize, tr.WriteBufferSize)
	}
	if tr.WriteBufferSize > 1<<10 {
		t.Errorf("write buffer of %d bytes per upstream connection, want at most 1 KiB", tr.WriteBufferSize)
	}
}

// Request bodies around the write buffer's size, the ones bufio splits
// between the buffer and a direct write, arrive whole and in order.
func TestTransportRequestBodiesAroundWriteBuffer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	}))
	defer srv.Close()
	c := &http.Client{Transport: NewTransport(0)}
	defer c.CloseIdleConnections()
	for _, n := range []int{1, 500, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3000, 4096, 9000} {
		var b strings.Builder
		for i := range n {
			b.WriteByte("0123456789abcdef"[i%16])
		}
		body := b.String()
		resp, err := c.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != body {
			t.Errorf("%d bytes: echoed %d bytes (err %v), want the body whole", n, len(got), err)
		}
	}
}

// Small buffers must not limit what passes: a request body, a response
// header and a chunk, each far bigger than a buffer, arrive whole.
func TestTransportCarriesMoreThanItsBuffers(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Big", big[:8<<10])
		w.Write([]byte("data: "))
		w.(http.Flusher).Flush() // chunked from here on
		w.Write(b)
		w.Write([]byte("\n\n"))
	}))
	defer srv.Close()
	c := &http.Client{Transport: NewTransport(0)}
	resp, err := c.Post(srv.URL, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("data: "+big+"\n\n", string(got)); diff != "" {
		t.Errorf("body (-want +got):\n%.300s", diff)
	}
	if h := resp.Header.Get("X-Big"); h != big[:8<<10] {
		t.Errorf("header of %d bytes, want %d", len(h), 8<<10)
	}
}
