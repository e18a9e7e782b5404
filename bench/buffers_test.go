package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// BenchmarkTransportCalls counts the reads and writes on the socket that
// provider.NewTransport's transport makes for one call over HTTP/1.1, with
// the read and write buffers it ships with and smaller ones: a small
// answer and a large one behind OpenAI's 1.2 KB of headers, read the way
// provider.Upstream reads them (into a buffer of the declared length), and
// a fast stream of 200 chunks sent back to back, read with a large buffer;
// each for request bodies of 500 and 2000 bytes. The upstream writes each
// answer whole, at once. What a smaller buffer saves an open stream is in
// BenchmarkOpenStream and the bench's -slow-streams.
func BenchmarkTransportCalls(b *testing.B) {
	var stream strings.Builder
	for i := range 200 {
		ev := fmt.Sprintf(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5.4-mini","choices":[{"index":0,"delta":{"content":" word%d"},"finish_reason":null}]}`+"\n\n", i)
		fmt.Fprintf(&stream, "%x\r\n%s\r\n", len(ev), ev)
	}
	stream.WriteString("0\r\n\r\n")
	small, large := strings.Repeat("x", 1200), strings.Repeat("y", 100<<10)
	answers := []struct{ name, resp string }{
		{"small", openAIHead("application/json", len(small)) + small},
		{"large", openAIHead("application/json", len(large)) + large},
		{"stream", openAIHead("text/event-stream", -1) + stream.String()},
	}
	tr := provider.NewTransport(0)
	sizes := [][2]int{{tr.ReadBufferSize, tr.WriteBufferSize}, {1 << 10, 1 << 10}, {tr.ReadBufferSize, 1 << 10}}
	for _, a := range answers {
		addr := answerAll(b, a.resp)
		for _, body := range []int{500, 2000} {
			for _, s := range sizes {
				b.Run(fmt.Sprintf("%s/body=%d/read=%d/write=%d", a.name, body, s[0], s[1]), func(b *testing.B) {
					benchCalls(b, addr, body, s[0], s[1])
				})
			}
		}
	}
}

func benchCalls(b *testing.B, addr string, body, readBuf, writeBuf int) {
	var reads, writes atomic.Int64
	tr := provider.NewTransport(0)
	tr.ReadBufferSize, tr.WriteBufferSize = readBuf, writeBuf
	d := &net.Dialer{}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		return countedConn{c, &reads, &writes}, err
	}
	defer tr.CloseIdleConnections()
	reqBody := `{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"` + strings.Repeat("z", body-64) + `"}]}`
	big := make([]byte, 32<<10)
	for b.Loop() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(reqBody))
		req.Header.Set("Authorization", "Bearer sk-0123456789abcdef0123456789abcdef0123456789abcdef")
		req.Header.Set("Content-Type", "application/json")
		resp, err := tr.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		buf := big
		if resp.ContentLength >= 0 {
			buf = make([]byte, resp.ContentLength+1)
		}
		for err == nil {
			_, err = resp.Body.Read(buf)
		}
		resp.Body.Close()
		if err != io.EOF {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reads.Load())/float64(b.N), "reads/op")
	b.ReportMetric(float64(writes.Load())/float64(b.N), "writes/op")
}

// countedConn counts its reads and writes.
type countedConn struct {
	net.Conn
	reads, writes *atomic.Int64
}

func (c countedConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

func (c countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// openAIHead is the status line and headers of an OpenAI answer as
// api.openai.com sends them, 1.2 KB; length -1 is a chunked body.
func openAIHead(contentType string, length int) string {
	framing := "Transfer-Encoding: chunked\r\n"
	if length >= 0 {
		framing = fmt.Sprintf("Content-Length: %d\r\n", length)
	}
	return "HTTP/1.1 200 OK\r\nDate: Thu, 26 Nov 2026 16:00:00 GMT\r\nContent-Type: " + contentType + "\r\n" + framing +
		"Connection: keep-alive\r\naccess-control-expose-headers: X-Request-ID\r\nopenai-organization: user-abcdefghijklmnopqrstuvwx\r\n" +
		"openai-processing-ms: 412\r\nopenai-version: 2020-10-01\r\nstrict-transport-security: max-age=31536000; includeSubDomains; preload\r\n" +
		"x-ratelimit-limit-requests: 10000\r\nx-ratelimit-limit-tokens: 30000000\r\nx-ratelimit-remaining-requests: 9999\r\n" +
		"x-ratelimit-remaining-tokens: 29999975\r\nx-ratelimit-reset-requests: 6ms\r\nx-ratelimit-reset-tokens: 0s\r\n" +
		"x-request-id: req_0123456789abcdef0123456789abcdef\r\nCF-Cache-Status: DYNAMIC\r\n" +
		"Set-Cookie: __cf_bm=" + strings.Repeat("a", 170) + "; path=/; expires=Thu, 26-Nov-26 16:30:00 GMT; domain=.api.openai.com; HttpOnly; Secure; SameSite=None\r\n" +
		"Set-Cookie: _cfuvid=" + strings.Repeat("b", 70) + "; path=/; domain=.api.openai.com; HttpOnly; Secure; SameSite=None\r\n" +
		"X-Content-Type-Options: nosniff\r\nServer: cloudflare\r\nCF-RAY: 8abcdef012345678-AMS\r\nalt-svc: h3=\":443\"; ma=86400\r\n\r\n"
}

// answerAll listens on a loopback port and answers every request on every
// connection with resp, written at once; the listener closes when the
// benchmark ends.
func answerAll(b *testing.B, resp string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					io.WriteString(c, resp)
				}
			}()
		}
	}()
	return ln.Addr().String()
}
