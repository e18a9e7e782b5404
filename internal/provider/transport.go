package provider

import (
	"net"
	"net/http"
	"time"
)

// DefaultConnectTimeout bounds opening a connection when a provider sets
// none.
const DefaultConnectTimeout = 10 * time.Second

// NewTransport returns the tuned transport one provider uses for all its
// calls: keep-alive with an idle pool sized for a busy gateway, HTTP/2
// where the upstream offers it, dials bounded by connect (0:
// DefaultConnectTimeout), and no overall timeout (streams are long;
// callers bound each call with their context). An open stream holds its
// connection, and so its buffers, for its whole life, and bigger ones cost
// more memory per open stream than they save in system calls (a body
// larger than a buffer is read and written around it). The read buffer is
// 4 KiB, so that a small answer's header and body come in one read and a
// fast stream's chunks come a few to a read (a stream of 200 chunks sent
// back to back, 55 KB: 15-38 reads at 4 KiB, 28-69 at 2 KiB, 71-96 at
// 1 KiB); the write buffer is 4 KiB too, so that a request's header and a
// body of up to about 3.5 KB (most chat requests) go out in one write: at
// 1 KiB, any body over about 700 bytes cost a second write per call, a
// system call on every request to save 3 KiB per open stream. Both at
// 1 KiB save 6.6 KB of the 65.5 KB an open stream costs through an
// HTTP/1.1 upstream (the write buffer alone 2.5 KB; go run ./bench
// -slow-streams 2000 -words 20 -base TREE, TREE at 1 KiB) and cost a small
// answer behind OpenAI's 1.2 KB of headers three reads instead of one, a
// 100 KB answer three instead of two (its body goes around the buffer;
// BenchmarkTransportCalls in bench counts them). A transport of its own
// for streams would save the memory only on HTTP/1.1 upstreams, at the
// price of a second connection pool and a fast stream's reads. All of
// this is HTTP/1.1's: over HTTP/2 (TLS upstreams that offer it) the
// buffers are per connection, shared by the streams it carries (go run
// ./bench -slow-streams 10000 -upstream-tls: 40 connections);
// BenchmarkOpenStream in bench measures net/http's part of an open stream.
func NewTransport(connect time.Duration) *http.Transport {
	if connect <= 0 {
		connect = DefaultConnectTimeout
	}
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: 0, // the per-call context bounds the wait
		WriteBufferSize:       4 << 10,
		ReadBufferSize:        4 << 10,
	}
}
