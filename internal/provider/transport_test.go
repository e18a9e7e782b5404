package provider

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 18: an open stream holds its upstream connection, and with it the
// transport's read and write buffers, for its whole life; at 32 KiB each
// they were most of the gateway's memory per open stream. The budget is
// 32 KB of resident memory per open stream in all.
func TestTransportBuffersFitStreamBudget(t *testing.T) {
	tr := NewTransport(0)
	if got := tr.ReadBufferSize + tr.WriteBufferSize; got > 8<<10 {
		t.Errorf("read %d + write %d bytes of buffer per upstream connection, want at most 8 KiB",
			tr.ReadBufferSize, tr.WriteBufferSize)
	}
}

// countingConn counts the writes a connection is asked to make.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A request with a body of a typical chat's size goes out in one write
// (one system call): header and body fit the write buffer together.
func TestTransportWritesTypicalRequestOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	tr := NewTransport(0)
	var writes atomic.Int64
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &writes}, nil
	}
	c := &http.Client{Transport: tr}
	defer c.CloseIdleConnections()
	for _, n := range []int{100, 1000, 2000, 3000} {
		writes.Store(0)
		req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(make([]byte, n)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := writes.Load(); got != 1 {
			t.Errorf("a request with a %d-byte body took %d writes, want 1", n, got)
		}
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
