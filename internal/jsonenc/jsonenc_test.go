package jsonenc

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendStringEveryPosition checks that a character to escape is
// found at every position of short strings, read back as encoding/json
// reads its own, and that a string with none is copied as it is.
func TestAppendStringEveryPosition(t *testing.T) {
	specials := []string{"\x00", "\x1f", `"`, `\`, "\x7f", "\x80", "\xff", "é", "\u2028", "\U0001F600", "\xe2\x82"}
	for n := range 20 {
		for pos := 0; pos < n; pos++ {
			for _, sp := range specials {
				s := strings.Repeat("a", pos) + sp + strings.Repeat("z", n-pos-1)
				b := AppendString(nil, s)
				var got, want string
				if err := json.Unmarshal(b, &got); err != nil || !utf8.Valid(b) {
					t.Fatalf("%q: %v: %q is not JSON in UTF-8", s, err, b)
				}
				ref, _ := json.Marshal(s)
				json.Unmarshal(ref, &want)
				if got != want {
					t.Errorf("%q: AppendString gives %s, read back as %q, want %q", s, b, got, want)
				}
			}
		}
		s := strings.Repeat("k", n) + "~ #/:.-_09AZaz"[:min(n, 14)]
		if got, want := string(AppendString(nil, s)), `"`+s+`"`; got != want {
			t.Errorf("plain %q: got %s", s, got)
		}
	}
}

// TestSafePrefix compares safePrefix, which reads eight bytes at a time,
// with a byte at a time, for every byte value at every position of
// strings of up to 19 bytes that are safe elsewhere.
func TestSafePrefix(t *testing.T) {
	safe := strings.Repeat("a~ Z", 5)
	for n := 1; n < 20; n++ {
		for at := range n {
			for c := range 256 {
				b := []byte(safe[:n])
				b[at] = byte(c)
				want := n
				if !jsonSafe[c] {
					want = at
				}
				if got := safePrefix(string(b)); got != want {
					t.Fatalf("safePrefix(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
	if got := safePrefix(""); got != 0 {
		t.Errorf(`safePrefix("") = %d`, got)
	}
}

// TestAppendStringIsSlogs checks AppendString against log/slog's JSON
// handler byte for byte, over every kind of escape.
func TestAppendStringIsSlogs(t *testing.T) {
	drop := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
			return slog.Attr{}
		}
		return a
	}
	for _, s := range []string{"", "plain", `quote " backslash \`, "\n\r\t\b\f", "\x00\x01\x1f\x7f",
		"<script>&amp;", "héllo 日本 😀", "bad \xff \xe2\x82 utf8", "\u2028\u2029", "\ufffd"} {
		var out bytes.Buffer
		slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{ReplaceAttr: drop})).Info("", "k", s)
		if got, want := `{"k":`+string(AppendString(nil, s))+"}\n", out.String(); got != want {
			t.Errorf("%q: AppendString gives %s, slog %s", s, got, want)
		}
	}
}

// BenchmarkAppendString appends the strings of a usage record and an
// access log line, which need no escaping, and one that does.
func BenchmarkAppendString(b *testing.B) {
	strs := []string{"usg_01JDQ3Y1V6A4ZK2W9X8C7B5N3M", "req_6f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f", "acct_01JDQ3X4M2",
		"chat.completions", "gpt-4o-mini", "openai", "openai/gpt-4o-mini-2024-07-18", "POST /v1/chat/completions",
		"INFO", `a "quoted" word`}
	b.ReportAllocs()
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = AppendString(buf, s)
		}
	}
}
