package api

import (
	"errors"
	"io"
	"sync"
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

// errBodiesBusy: the body budget cannot cover a body's memory.
var errBodiesBusy = errors.New("request body budget spent")

// chunkSize is the piece in which a body of unknown length is read.
const chunkSize = 64 << 10

// chunkPool holds the pieces of bodies of unknown length (*[chunkSize]byte).
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// bodyReader reads request bodies into memory taken from a budget.
type bodyReader struct {
	budget *bodyBytes
	held   int64 // taken from the budget for this body
}

// take reserves n bytes of the budget for this body.
func (r *bodyReader) take(n int) error {
	if !r.budget.take(int64(n)) {
		return errBodiesBusy
	}
	r.held += int64(n)
	return nil
}

// give returns n bytes of this body's reservation.
func (r *bodyReader) give(n int) {
	r.budget.give(int64(n))
	r.held -= int64(n)
}

// read reads body into b (a pooled buffer, whose capacity is not taken
// from the budget). A body of declared size is read straight into a buffer
// of that size plus one byte (to see its end); a body of unknown length
// (chunked) is read in pooled pieces, then copied into one buffer of its
// exact length: its memory is at most twice its length, briefly, and no
// doubling leaves garbage behind (issue 13).
func (r *bodyReader) read(b []byte, body io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return r.readChunked(b, body)
	}
	if int64(cap(b)) <= size {
		if err := r.take(int(size) + 1); err != nil {
			return nil, err
		}
		b = make([]byte, 0, size+1)
	}
	for {
		if len(b) == cap(b) {
			return nil, errors.New("request body longer than its Content-Length")
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readChunked reads a body of unknown length piece by piece.
func (r *bodyReader) readChunked(b []byte, body io.Reader) ([]byte, error) {
	var chunks []*[chunkSize]byte
	defer func() {
		for _, c := range chunks {
			chunkPool.Put(c)
		}
		r.give(len(chunks) * chunkSize)
	}()
	n := 0
	for {
		if n == len(chunks)*chunkSize {
			if err := r.take(chunkSize); err != nil {
				return nil, err
			}
			chunks = append(chunks, chunkPool.Get().(*[chunkSize]byte))
		}
		c := chunks[len(chunks)-1]
		m, err := body.Read(c[n%chunkSize:])
		n += m
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if cap(b) < n {
		if err := r.take(n); err != nil {
			return nil, err
		}
		b = make([]byte, 0, n)
	}
	for i, c := range chunks {
		b = append(b, c[:min(chunkSize, n-i*chunkSize)]...)
	}
	return b, nil
}
