package sse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
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
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*", "*.sse"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, uint16(0))
			f.Add(b, uint16(100))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		max := int(limit)
		got, err := readAll(bytes.NewReader(in), max)
		if err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("error: %v", err)
		}
		if max <= 0 {
			max = defaultMax
		}
		for i, e := range got {
			if len(e.Data) > max || len(e.Event) > max {
				t.Fatalf("event %d over the limit %d: %d bytes of data, %d of name", i, max, len(e.Data), len(e.Event))
			}
		}
		one, oneErr := readAll(iotest.OneByteReader(bytes.NewReader(in)), int(limit))
		if oneErr != err {
			t.Fatalf("one byte at a time: error = %v, want %v", oneErr, err)
		}
		if diff := cmp.Diff(got, one); diff != "" {
			t.Fatalf("one byte at a time: events mismatch (-whole +one byte):\n%s", diff)
		}
		if err == nil {
			if diff := cmp.Diff(refParse(string(in)), got); diff != "" {
				t.Fatalf("events differ from the reference parser (-ref +got):\n%s", diff)
			}
		}
	})
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
