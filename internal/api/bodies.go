package api

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
)

// bodyBytes is the process-wide budget of request body memory
// (server.max_body_bytes_in_flight): every body's buffer takes its
// capacity from it before growing and gives it back when the handler is
// done with the body, so concurrent large bodies are refused with a 503
// instead of growing the heap (issue 13). The zero value is unbounded.
type bodyBytes struct {
	max  int64 // 0: unbounded
	used atomic.Int64
}

// take reserves n bytes and reports whether the budget had them.
func (b *bodyBytes) take(n int64) bool {
	for {
		u := b.used.Load()
		if b.max > 0 && u+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// give returns n bytes taken earlier.
func (b *bodyBytes) give(n int64) { b.used.Add(-n) }

// errBodiesBusy: the body budget cannot cover a body's next growth.
var errBodiesBusy = errors.New("request body budget spent")

// firstGrowth is the capacity a body of unknown length first grows to.
const firstGrowth = 64 << 10

// fill reads body into b's spare capacity, growing b by doubling. Before
// each growth it calls hold with the new capacity, and stops with
// errBodiesBusy when hold refuses. size is the declared length (<= 0 when
// unknown, as for chunked bodies); limit, when positive, is the largest
// body accepted, which caps the growth at limit+1 so the reader can see
// the end (or the excess).
func fill(b []byte, body io.Reader, size, limit int64, hold func(capacity int) bool) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			c := max(2*cap(b), firstGrowth)
			if size > 0 && len(b) == 0 {
				c = max(int(size)+1, cap(b))
			}
			if limit > 0 {
				c = int(min(int64(c), limit+1))
			}
			if c <= len(b) {
				return b, &http.MaxBytesError{Limit: limit}
			}
			if !hold(c) {
				return b, errBodiesBusy
			}
			nb := make([]byte, len(b), c)
			copy(nb, b)
			b = nb
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
