// Package sse reads upstream Server-Sent Event streams and writes client ones.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// ErrTooLarge reports an event bigger than the reader's limit.
var ErrTooLarge = errors.New("sse: event too large")

const (
	// defaultMax is the event limit when NewReader is given max <= 0; the
	// official OpenAI Go SDK allows events this big.
	defaultMax = 32 << 20
	// bufSize is the size of the read buffer. Longer lines are assembled in
	// Reader.long, so a chunk of several MiB needs no bigger buffer. A Reader
	// lives as long as its stream, so the buffer counts in the memory per
	// open stream: 1 KiB holds the usual chunk whole (a few hundred bytes),
	// and a longer line leaves Reader.long sized for the next ones.
	bufSize = 1 << 10
	// bigBufSize is the read buffer of a stream whose upstream sends more
	// than bufSize between two reads (a fast model, a gateway behind on
	// its reads): as much as the HTTP transport buffers. The client writer
	// flushes before each read of the upstream body (provider.WaitHook),
	// so at 1 KiB such a stream took a write to the client per KiB rather
	// than per read of the network (issue 18). A stream whose reads each
	// bring an event or two, such as a slow stream, keeps the small one.
	bigBufSize = 4 << 10
	// dataSize is the room an event's data is first given: a chat
	// chunk, and the usage chunk that ends a stream, fit, where growing
	// from the first chunk's size took a second allocation in every
	// stream (issue 18).
	dataSize = 512
	// fieldSlack is what a line may carry beyond the limit: "data: ".
	fieldSlack = len("data: ")
)

// utf8BOM may open a stream; it is not part of the first field name.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// bufPool and bigPool hold the read buffers of finished Readers, of
// bufSize and bigBufSize: every streamed request needs one.
var bufPool, bigPool sync.Pool // of *bufio.Reader

// Event is one parsed event. Data is valid until the next call to Next.
type Event struct {
	Event string // the "event:" field, "" when absent
	Data  []byte // "data:" lines joined with "\n"
}

// Reader parses a stream of events. It accepts what the upstreams send:
// lines ending in "\n", "\r\n" or "\r" (mixed), comments, and fields it does
// not know (id, retry and others are skipped). It does not treat
// "data: [DONE]" specially; callers do.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader // nil once the reader has failed or ended
	src     source        // what br reads
	max     int           // limit on len(Event.Data) and len(Event.Event)
	err     error         // sticky: returned by every Next after the first failure
	lineErr error         // read error held back to return a final unterminated line first
	skipLF  bool          // the last line ended in "\r"; a "\n" right after it belongs to it
	lfFree  int           // buffered bytes known to hold no "\n", from the read position
	started bool          // the first line (which may carry a BOM) has been read

	long []byte // a line longer than the read buffer, assembled
	data []byte // Data of the current event; reused across events
	name string // Event of the current event
	last string // the most recent unknown event name, reused to avoid an allocation
	has  bool   // the current event has a data field

	bareJSON bool // AcceptBareJSON was called
	bare     bool // the current event is a bare JSON block
}

// AcceptBareJSON makes the reader return a block of lines that starts with
// "{" where an event would start, up to the next blank line or the end, as
// an event of its own whose Data is those lines joined with "\n". Gemini
// sends an error in the middle of a stream so, without "data:" (Google's
// own SDKs read it); by the SSE rules it would be a field of an unknown
// name, dropped without a word.
func (r *Reader) AcceptBareJSON() { r.bareJSON = true }

// NewReader returns a reader of r that refuses events over max bytes (max <= 0
// means 32 MiB). Max bounds the data of one event and the length of any one
// line (plus room for its field name), so memory stays bounded whatever the
// upstream sends. The stream is read as needed, never as a whole.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = defaultMax
	}
	rd := &Reader{max: max, src: source{r: r}}
	rd.br = pooled(&bufPool, &rd.src, bufSize)
	return rd
}

// pooled returns a read buffer of size from pool, reading r.
func pooled(pool *sync.Pool, r io.Reader, size int) *bufio.Reader {
	br, _ := pool.Get().(*bufio.Reader)
	if br == nil {
		return bufio.NewReaderSize(r, size)
	}
	br.Reset(r)
	return br
}

// source is what a Reader's buffer reads: the stream, noting whether
// its last read filled all the room it was given, when the stream likely
// has more to give at once.
type source struct {
	r    io.Reader
	full bool
	// err is the stream's error (or the buffer's, met in Await),
	// returned again by later reads without reading the stream: the read
	// that met it may have been Await's, whose buffer does not keep it
	// for Next.
	err error
	// rest, when the big buffer has taken over from small, is what small
	// held unread: the big buffer's first read, after which small goes
	// back to its pool.
	rest  []byte
	small *bufio.Reader
}

func (s *source) Read(p []byte) (int, error) {
	if s.small != nil {
		n := copy(p, s.rest)
		s.rest = s.rest[n:]
		s.release()
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.full = n > 0 && n == len(p)
	s.err = err
	return n, err
}

// release puts the small buffer back in its pool once its rest is read.
func (s *source) release() {
	if len(s.rest) == 0 {
		s.small.Reset(nil)
		bufPool.Put(s.small)
		s.small, s.rest = nil, nil
	}
}

// grow swaps the small read buffer for a big one, which reads first what
// the small one holds unread (the start of a line).
func (r *Reader) grow() {
	r.src.small = r.br
	r.src.rest, _ = r.br.Peek(r.br.Buffered())
	r.br = pooled(&bigPool, &r.src, bigBufSize)
	r.src.release()
}

// Next returns the next event that has data (a data field, even an empty one)
// or an event name. It returns io.EOF at the clean end of input; a final event
// without its blank line is still returned before io.EOF. It returns
// ErrTooLarge for an event over the limit, and read errors as they come.
// After an error, Next keeps returning it.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	r.data = r.data[:0]
	r.name = ""
	r.has = false
	r.bare = false
	for {
		line, err := r.readLine()
		if err != nil {
			r.fail(err)
			if err == io.EOF && r.pending() {
				return r.event(), nil
			}
			return Event{}, err
		}
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) == 0 {
			if r.pending() {
				return r.event(), nil
			}
			continue
		}
		if r.bareJSON && (r.bare || !r.pending() && line[0] == '{') {
			if err := r.bareLine(line); err != nil {
				r.fail(err)
				return Event{}, err
			}
			continue
		}
		if err := r.field(line); err != nil {
			r.fail(err)
			return Event{}, err
		}
	}
}

// Await waits for the stream's next bytes when Next would: when no whole
// line is buffered, unless the reader has failed or ended. Next then
// starts on what it read, and reads on if that is only part of an event,
// or returns the read's error. With a line buffered (the start of an
// event, say), it returns at once and Next reads on if it must; so it
// does when the buffer is full of one line's start, which Next grows. A
// caller that waits for each event through Await idles in a frame of its
// own, shallower than Next's: a goroutine parked on a stream keeps the
// stack its frames hold at that moment, and the runtime halves a stack
// only when less than a quarter of it is in use (issue 18).
//
// The "\n" of a "\r\n" split across reads ends no line: Await drops it,
// as Next would first, and waits on past it, else Next would wait for the
// line that follows.
func (r *Reader) Await() {
	for {
		if r.br == nil || r.lineErr != nil || r.src.err != nil || len(r.src.rest) > 0 {
			return
		}
		if r.skipLF && r.br.Buffered() > 0 {
			r.skipNewline() // no I/O with a byte buffered: never fails
		}
		n := r.br.Buffered()
		if n == r.br.Size() || n > 0 && r.lineHeld(n) {
			return
		}
		if r.src.full && r.br.Size() < bigBufSize {
			// As readLine would: the stream has more than the small buffer
			// takes, and the big one reads first the n bytes the small one
			// holds, then the stream.
			r.grow()
		}
		// The stream's error stays with source, for Next; one of bufio's
		// own (io.ErrNoProgress), which Peek returns once, is kept there
		// too.
		if _, err := r.br.Peek(n + 1); err != nil && r.src.err == nil {
			r.src.err = err
		}
		// A "\n" pending from the last line's "\r" was not buffered before
		// this read; the next turn drops it if the read brought it, and
		// then clears skipLF, so this loops at most once more.
		if !r.skipLF {
			return
		}
	}
}

// lineHeld reports whether the n bytes buffered hold the end of a line.
// A read usually brings whole events, so the last byte is looked at
// first. Else the "\n" it finds is noted in lfFree, where the search of
// the line's end in readLine then starts: Await's look is not a second
// scan of the line (issue 18). A "\r", which upstreams seldom send, is
// looked for only when no "\n" is held.
func (r *Reader) lineHeld(n int) bool {
	held, _ := r.br.Peek(n) // no I/O: never fails
	if c := held[n-1]; c == '\n' || c == '\r' {
		return true
	}
	if r.lfFree < n {
		if i := bytes.IndexByte(held[r.lfFree:], '\n'); i >= 0 {
			r.lfFree += i
			return true
		}
		r.lfFree = n
	}
	return bytes.IndexByte(held, '\r') >= 0
}

func (r *Reader) pending() bool { return r.has || r.name != "" }

func (r *Reader) event() Event { return Event{Event: r.name, Data: r.data} }

// fail records err for later calls and returns the read buffer to the pool.
// Nothing returned to the caller aliases it.
func (r *Reader) fail(err error) {
	r.err = err
	if r.br != nil {
		pool := &bufPool
		if r.br.Size() == bigBufSize {
			pool = &bigPool
		}
		r.br.Reset(nil)
		pool.Put(r.br)
		r.br = nil
	}
}

// bareLine adds one line to the bare JSON block being read.
func (r *Reader) bareLine(line []byte) error {
	r.bare = true
	return r.appendData(line)
}

// appendData adds one line of data to the current event, after a "\n" if
// it has some already.
func (r *Reader) appendData(value []byte) error {
	n := len(r.data) + len(value)
	if r.has {
		n++
	}
	if n > r.max {
		return ErrTooLarge
	}
	if cap(r.data) == 0 {
		r.data = make([]byte, 0, max(n, dataSize))
	}
	if r.has {
		r.data = append(r.data, '\n')
	}
	r.data = append(r.data, value...)
	r.has = true
	return nil
}

// field applies one non-empty line to the current event.
func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment, e.g. ": keep-alive"
	}
	name, value := line, line[len(line):]
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		return r.appendData(value)
	case "event":
		if len(value) > r.max {
			return ErrTooLarge
		}
		r.name = r.intern(value)
	}
	return nil
}

// intern returns b as a string, without allocating for the names the
// upstreams repeat on every event (Anthropic's) or for a repeat of the
// previous unknown name.
func (r *Reader) intern(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "message_start":
		return "message_start"
	case "content_block_start":
		return "content_block_start"
	case "content_block_delta":
		return "content_block_delta"
	case "content_block_stop":
		return "content_block_stop"
	case "message_delta":
		return "message_delta"
	case "message_stop":
		return "message_stop"
	case "ping":
		return "ping"
	case "error":
		return "error"
	}
	if string(b) != r.last {
		r.last = string(b)
	}
	return r.last
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("sse: reader closed")

// Close returns the reader's buffer to the pool when the caller stops
// early (at an OpenAI "[DONE]", say); later calls to Next return
// ErrClosed. It does not close the underlying reader.
func (r *Reader) Close() {
	if r.err == nil {
		r.fail(ErrClosed)
	}
}
