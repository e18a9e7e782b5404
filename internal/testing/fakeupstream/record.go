package fakeupstream

import (
	"bytes"
	"io"
	"net/http"
)

// Request is a request as a fake received it.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// maxRecorded bounds the request log so long benchmarks don't grow memory.
const maxRecorded = 10000

// Requests returns copies of the requests received so far (at most the
// last 10000).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	recent := s.reqs[max(0, len(s.reqs)-maxRecorded):]
	out := make([]Request, len(recent))
	for i, r := range recent {
		out[i] = r.clone()
	}
	return out
}

// Last returns the most recent request (zero Request if none).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return Request{}
	}
	return s.reqs[len(s.reqs)-1].clone()
}

func (r Request) clone() Request {
	return Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header.Clone(), Body: bytes.Clone(r.Body)}
}

func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	if len(s.reqs) >= 2*maxRecorded {
		// Compact now and then; Requests reports only the newest maxRecorded.
		n := copy(s.reqs, s.reqs[len(s.reqs)-maxRecorded:])
		clear(s.reqs[n:])
		s.reqs = s.reqs[:n]
	}
}

// recordedBody replaces a request's body once the core has read it.
type recordedBody struct {
	b   []byte
	err error // why reading stopped early (too large, client gone), or nil
	off int
}

func (b *recordedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.b) {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := copy(p, b.b[b.off:])
	b.off += n
	return n, nil
}

func (b *recordedBody) Close() error { return nil }

// ReadBody returns the body of a request served by the core, without
// copying it, and the error that cut it short (too large, client gone).
// Outside the core it reads r.Body. The fake must not modify the bytes:
// the request log holds them.
func ReadBody(r *http.Request) ([]byte, error) {
	if b, ok := r.Body.(*recordedBody); ok {
		return b.b, b.err
	}
	return io.ReadAll(r.Body)
}
