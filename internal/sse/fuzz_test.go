package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/fixture"
)

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"",
		"data: a\n\ndata: b\n\n",
		"data: a\r\n\r\nevent: ping\r\rdata:b\rdata\n\n",
		"\xEF\xBB\xBFdata: a\n: c\nid: 1\nretry: 2\nx\n\n",
		"event: message_start\ndata: {}\n\nevent: message_start\ndata: {}",
		"data: 0123456789a\n\n",
		"\r\n\r",
	} {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(8))
	}
	for _, name := range fixture.Glob(f, filepath.Join(fixtureDir, "*", "*.sse")) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, uint16(0))
			f.Add(b, uint16(100))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		got, err := checkedRead(t, readAll, in, int(limit))
		// Await before each Next, the stream in reads of 7 bytes: lines
		// split across reads, which Await waits for (issue 18).
		aw, awErr := readEventsAwaiting(NewReader(chunkReader{bytes.NewReader(in), 7}, int(limit)), true)
		if awErr != err {
			t.Fatalf("with Await: error = %v, want %v", awErr, err)
		}
		if diff := cmp.Diff(got, aw); diff != "" {
			t.Fatalf("with Await: events mismatch (-whole +awaited):\n%s", diff)
		}
		if err == nil {
			if diff := cmp.Diff(refParse(string(in)), got); diff != "" {
				t.Fatalf("events differ from the reference parser (-ref +got):\n%s", diff)
			}
		}
	})
}

// FuzzReaderBareJSON: with AcceptBareJSON the reader keeps its limit,
// reads the same one byte at a time, and reads a stream in which no line
// starts with "{" exactly as without it.
func FuzzReaderBareJSON(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n{\"error\":{}}\n\n",
		"data: a\r\n\r\n{\r\n  \"error\": {\r\n  }\r\n}\r\n\r\n",
		"{\ndata: x\n\ndata: y\n\n",
		"data: a\n{\n\n",
	} {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(8))
	}
	read := func(r io.Reader, max int) ([]ev, error) {
		rd := NewReader(r, max)
		rd.AcceptBareJSON()
		return readEvents(rd)
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		got, err := checkedRead(t, read, in, int(limit))
		lines := strings.FieldsFunc(strings.TrimPrefix(string(in), "\xEF\xBB\xBF"), func(r rune) bool { return r == '\n' || r == '\r' })
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "{") }) {
			plain, plainErr := readAll(bytes.NewReader(in), int(limit))
			if plainErr != err || !cmp.Equal(plain, got) {
				t.Fatalf("no line starts with {, yet the events differ: %v %v\n%s", plainErr, err, cmp.Diff(plain, got))
			}
		}
	})
}

// checkedRead reads in with read, whole and one byte at a time, and
// fails t unless both give the same events and error (none, or
// ErrTooLarge) and every event is within the limit.
func checkedRead(t *testing.T, read func(io.Reader, int) ([]ev, error), in []byte, limit int) ([]ev, error) {
	t.Helper()
	got, err := read(bytes.NewReader(in), limit)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error: %v", err)
	}
	max := limit
	if max <= 0 {
		max = defaultMax
	}
	for i, e := range got {
		if len(e.Data) > max || len(e.Event) > max {
			t.Fatalf("event %d over the limit %d: %d bytes of data, %d of name", i, max, len(e.Data), len(e.Event))
		}
	}
	one, oneErr := read(iotest.OneByteReader(bytes.NewReader(in)), limit)
	if oneErr != err {
		t.Fatalf("one byte at a time: error = %v, want %v", oneErr, err)
	}
	if diff := cmp.Diff(got, one); diff != "" {
		t.Fatalf("one byte at a time: events mismatch (-whole +one byte):\n%s", diff)
	}
	return got, err
}

// refParse is a slow, obviously-correct parser of a whole stream, to check
// the Reader against.
func refParse(s string) []ev {
	s = strings.TrimPrefix(s, "\xEF\xBB\xBF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // what followed the last line end
	}
	lines = append(lines, "") // an unterminated final event still counts
	var (
		out  []ev
		name string
		data []string
	)
	for _, l := range lines {
		if l == "" {
			if data != nil || name != "" {
				out = append(out, ev{name, strings.Join(data, "\n")})
			}
			name, data = "", nil
			continue
		}
		field, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			name = value
		}
	}
	return out
}
