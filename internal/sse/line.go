package sse

import (
	"bytes"
	"io"
)

// readLine returns the next line without its terminator ("\n", "\r\n" or a
// lone "\r"). The line aliases the read buffer or r.long and is valid until
// the next read. Lines up to the buffer size are not copied; longer ones are
// assembled in r.long, up to the limit.
func (r *Reader) readLine() ([]byte, error) {
	if r.lineErr != nil {
		return nil, r.lineErr
	}
	if err := r.skipNewline(); err != nil {
		return nil, err
	}
	r.long = r.long[:0]
	scanned := 0 // bytes at the start of the buffer known to hold no line end
	for {
		buf, _ := r.br.Peek(r.br.Buffered()) // no I/O: never fails
		if i := r.lineEnd(buf, scanned); i >= 0 {
			return r.takeLine(buf, i)
		}
		if len(r.long)+len(buf) > r.max+fieldSlack {
			return nil, ErrTooLarge
		}
		scanned = len(buf)
		if scanned == r.br.Size() {
			r.long = append(r.long, buf...)
			r.discard(scanned)
			scanned = 0
		} else if r.src.full && r.br.Size() < bigBufSize {
			// The stream has more than the small buffer takes: the big
			// one starts with the scanned bytes.
			r.grow()
		}
		// Wait for at least one more byte.
		if _, err := r.br.Peek(scanned + 1); err != nil {
			if err != io.EOF || len(r.long)+scanned == 0 {
				return nil, err
			}
			// A final line without its line end: return it now, EOF next.
			r.lineErr = err
			buf, _ = r.br.Peek(scanned)
			r.discard(scanned)
			return r.join(buf)
		}
	}
}

// skipNewline drops the "\n" of a "\r\n" split across reads. It runs before
// the next line is read, not after the "\r", so that an event ending in "\r\r"
// is returned without waiting for more input.
func (r *Reader) skipNewline() error {
	if !r.skipLF {
		return nil
	}
	b, err := r.br.Peek(1)
	if err != nil {
		return err
	}
	r.skipLF = false
	if b[0] == '\n' {
		r.discard(1)
	}
	return nil
}

// takeLine consumes the line of buf that ends at buf[i].
func (r *Reader) takeLine(buf []byte, i int) ([]byte, error) {
	n := i + 1
	if buf[i] == '\r' {
		if n < len(buf) {
			if buf[n] == '\n' {
				n++
			}
		} else {
			r.skipLF = true
		}
	}
	line, err := r.join(buf[:i])
	r.discard(n)
	return line, err
}

// join returns the line made of r.long and its tail, checking its size.
func (r *Reader) join(tail []byte) ([]byte, error) {
	line := tail
	if len(r.long) > 0 {
		r.long = append(r.long, tail...)
		line = r.long
	}
	if len(line) > r.max+fieldSlack {
		return nil, ErrTooLarge
	}
	return line, nil
}

// lineEnd returns the index in buf (the buffered input) of the first "\r" or
// "\n" at or after from, or -1. Both searches are vectorised IndexBytes. A
// stream that uses only "\r" has no "\n" to find, so r.lfFree remembers how
// far the search for "\n" already went: without it, every line would scan the
// rest of the buffer again.
func (r *Reader) lineEnd(buf []byte, from int) int {
	end := len(buf) // the first "\n", or the end of buf
	if r.lfFree < len(buf) {
		if i := bytes.IndexByte(buf[max(r.lfFree, from):], '\n'); i >= 0 {
			end = max(r.lfFree, from) + i
		}
	}
	r.lfFree = end
	if i := bytes.IndexByte(buf[from:end], '\r'); i >= 0 {
		return from + i
	}
	if end < len(buf) {
		return end
	}
	return -1
}

// discard consumes n buffered bytes.
func (r *Reader) discard(n int) {
	r.br.Discard(n)
	r.lfFree = max(r.lfFree-n, 0)
}
