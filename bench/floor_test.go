package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// BenchmarkOpenStream measures what net/http alone keeps for each open
// HTTP/1.1 stream, one stream an op (run it with -benchtime 2000x): the
// server side, an http.Server whose handler flushed a first event and
// waits; and the client side, provider.NewTransport's transport with a
// response whose first chunk was read, with the read and write buffers it
// ships with and smaller ones. The upstream compresses when asked; the
// requests ask for identity, as provider.Upstream's streams do, but in
// client/gzip. The peer of each is raw sockets served by one goroutine,
// so that it adds nothing per stream. Figures are after six collections
// (a parked goroutine's stack is halved at most once a collection):
// goroutines, stack bytes (MemStats.StackInuse) and live heap bytes
// (HeapAlloc) a stream. A gateway on net/http pays both sides for a
// proxied stream, before any handler logic (issue 18).
func BenchmarkOpenStream(b *testing.B) {
	b.Run("server", benchServerStreams)
	tr := provider.NewTransport(0)
	sizes := [][2]int{{tr.ReadBufferSize, tr.WriteBufferSize}, {2 << 10, 4 << 10}, {4 << 10, 1 << 10}, {1 << 10, 1 << 10}}
	for _, s := range sizes {
		b.Run(fmt.Sprintf("client/read=%d/write=%d", s[0], s[1]), func(b *testing.B) { benchClientStreams(b, s[0], s[1], "identity") })
	}
	// The transport's own Accept-Encoding, gzip, which the upstream takes.
	b.Run("client/gzip", func(b *testing.B) { benchClientStreams(b, tr.ReadBufferSize, tr.WriteBufferSize, "") })
}

// streamMem is a process's goroutines and memory after the collections
// that bring parked stacks down as far as they go.
type streamMem struct {
	goroutines   int
	stack, alloc int64
}

func settledMem() streamMem {
	for range 6 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return streamMem{runtime.NumGoroutine(), int64(m.StackInuse), int64(m.HeapAlloc)}
}

// report gives the difference between before and after, a stream's share;
// own is what the benchmark's side of the streams holds, taken off.
func (after streamMem) report(b *testing.B, before, own streamMem) {
	n := float64(b.N)
	b.ReportMetric(float64(after.goroutines-before.goroutines-own.goroutines)/n, "goroutines/stream")
	b.ReportMetric((float64(after.stack)-float64(before.stack)-float64(own.stack))/n, "stack-B/stream")
	b.ReportMetric((float64(after.alloc)-float64(before.alloc)-float64(own.alloc))/n, "heap-B/stream")
}

func benchServerStreams(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	var opened sync.WaitGroup
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {}\n\n")
		w.(http.Flusher).Flush()
		opened.Done()
		<-release
	})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(ln)
	}()
	defer func() {
		srv.Close()
		<-served
	}()
	body := `{"model":"m","stream":true}`
	head := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	before := settledMem()
	conns := make([]net.Conn, 0, b.N)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	opened.Add(b.N)
	for range b.N {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, head+body); err != nil {
			b.Fatal(err)
		}
	}
	opened.Wait()
	after := settledMem()
	// The clients' sockets (a few hundred bytes of heap each) are counted
	// in: a client connection costs the server that much too.
	after.report(b, before, streamMem{})
}

func benchClientStreams(b *testing.B, readBuf, writeBuf int, acceptEncoding string) {
	addr, stop := rawUpstream(b)
	defer stop()
	tr := provider.NewTransport(0)
	tr.ReadBufferSize, tr.WriteBufferSize = readBuf, writeBuf
	tr.MaxIdleConnsPerHost = b.N
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + addr + "/v1/chat/completions"
	// Each stream's reader is a goroutine of the benchmark's.
	reader := parkedMem(b.N)
	release := make(chan struct{})
	var opened, done sync.WaitGroup
	before := settledMem()
	opened.Add(b.N)
	done.Add(b.N)
	errs := make(chan error, b.N)
	for range b.N {
		go func() {
			defer done.Done()
			req, _ := http.NewRequest("POST", url, strings.NewReader(`{"model":"m","stream":true}`))
			req.Header.Set("Content-Type", "application/json")
			if acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", acceptEncoding)
			}
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				opened.Done()
				return
			}
			defer resp.Body.Close()
			var first [1]byte
			_, err = io.ReadFull(resp.Body, first[:])
			opened.Done()
			if err != nil {
				errs <- err
				return
			}
			<-release
		}()
	}
	opened.Wait()
	after := settledMem()
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	after.report(b, before, reader)
}

// rawUpstream listens on a loopback port where one goroutine answers each
// connection's request with a stream's header and first chunk, and leaves
// the stream open; stop closes it all. A request that accepts gzip gets
// the chunk compressed and flushed.
func rawUpstream(b *testing.B) (addr string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	const head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
	plain := head + "\r\na\r\ndata: {}\n\n\r\n"
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	io.WriteString(zw, "data: {}\n\n")
	zw.Flush()
	compressed := fmt.Sprintf("%sContent-Encoding: gzip\r\n\r\n%x\r\n%s\r\n", head, z.Len(), z.Bytes())
	var conns []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		buf := make([]byte, 4<<10)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			n, _ := c.Read(buf) // the request is small enough for one read
			if bytes.Contains(buf[:n], []byte("Accept-Encoding: gzip")) {
				io.WriteString(c, compressed)
			} else {
				io.WriteString(c, plain)
			}
		}
	}()
	return ln.Addr().String(), func() {
		ln.Close()
		<-accepted
		for _, c := range conns {
			c.Close()
		}
	}
}

// parkedMem is what n goroutines parked on a channel hold, to be taken off
// a measurement that has n such goroutines of its own.
func parkedMem(n int) streamMem {
	release := make(chan struct{})
	var parked sync.WaitGroup
	before := settledMem()
	parked.Add(n)
	for range n {
		go func() {
			defer parked.Done()
			<-release
		}()
	}
	after := settledMem()
	close(release)
	parked.Wait()
	return streamMem{after.goroutines - before.goroutines, after.stack - before.stack, after.alloc - before.alloc}
}
