// Package bareproxy is the bare httputil.ReverseProxy Switchyard is
// measured against, by the bench command (as a process of its own) and by
// internal/app's in-process benchmarks, tuned the same in both. It is
// never part of the binary.
package bareproxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// New returns a reverse proxy to upstream's scheme and host (its path is
// dropped: requests keep theirs), on a clone of the default transport
// that keeps up to 1024 idle connections, 256 a host, so that it dials
// about as rarely as the gateway's tuned client does. ReverseProxy
// flushes text/event-stream answers at once by itself.
func New(upstream *url.URL) *httputil.ReverseProxy {
	u := *upstream
	u.Path = ""
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 1024, 256
	return &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&u)
			// Read the request body before proxying: with go1.26 a
			// streamed answer through ReverseProxy otherwise breaks now
			// and then ("use of closed network connection") when the
			// client's body is forwarded as it arrives; buffering it is
			// what a gateway does anyway.
			if pr.Out.Body != nil {
				b, _ := io.ReadAll(pr.Out.Body)
				pr.Out.Body = io.NopCloser(bytes.NewReader(b))
			}
		},
	}
}
