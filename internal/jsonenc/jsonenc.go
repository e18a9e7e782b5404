// Package jsonenc appends JSON values to byte slices, for the lines the
// gateway writes on every request (the usage journal, the access log)
// without encoding/json's reflection and allocations.
package jsonenc

import "unicode/utf8"

// AppendString appends s as a JSON string, quoted as log/slog's JSON
// handler quotes one, so that a line written with it is byte for byte
// slog's and any JSON reader reads s back: quote, backslash, \n, \r and
// \t escaped by name, other control characters as \u00XX, invalid UTF-8
// bytes as \ufffd, U+2028 and U+2029 escaped. The runs between escapes
// are copied whole.
func AppendString(b []byte, s string) []byte {
	n := safePrefix(s)
	if n < len(s) {
		return appendEscaped(b, s, n)
	}
	// The common case: a string of safe bytes only, copied whole.
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEscaped is AppendString for an s whose first n bytes are safe,
// and the next is not.
func appendEscaped(b []byte, s string, n int) []byte {
	b = append(b, '"')
	for {
		b = append(b, s[:n]...)
		if n == len(s) {
			return append(b, '"')
		}
		var size int
		b, size = appendEscape(b, s[n:])
		s = s[n+size:]
		n = safePrefix(s)
	}
}

// jsonSafe holds, for each byte, whether it is written as itself in a
// JSON string whatever follows it: printable ASCII but the quote and the
// backslash.
var jsonSafe = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// safePrefix returns the length of the run of safe bytes s starts with.
// The strings of a line (IDs, model and route names) are nearly always
// safe throughout, so it reads s eight bytes at a time, as one word, and
// a byte at a time only from a word that is not all safe, or in a string
// shorter than a word.
func safePrefix(s string) int {
	i := 0
	if len(s) >= 8 {
		t := s
		for len(t) >= 8 && safeWord(t[:8]) {
			t = t[8:]
		}
		if len(t) < 8 && safeWord(s[len(s)-8:]) {
			// Every word was safe, and so are the last eight bytes,
			// which overlap the last word read.
			return len(s)
		}
		i = len(s) - len(t)
	}
	for i < len(s) && jsonSafe[s[i]] {
		i++
	}
	return i
}

// safeWord reports whether the eight bytes of t, read as one word, are
// all safe.
func safeWord(t string) bool {
	// Bytes repeated in each byte of a word.
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	// A byte's high bit is set in the result when it is 0x80 or more (w),
	// below 0x20 (w-0x20 borrows), or the quote or the backslash (the xor
	// zeroes it, and subtracting 1 borrows). Borrows may set the bits of
	// bytes above such a byte too, never when there is none.
	return (w|(w-0x20*ones)|((w^'"'*ones)-ones)|((w^'\\'*ones)-ones))&highs == 0
}

const hexDigits = "0123456789abcdef"

// appendEscape appends the first character of s, which is not a safe
// byte, as slog writes it, and returns how many bytes of s it took. A
// valid rune other than U+2028 and U+2029 stands for itself.
func appendEscape(b []byte, s string) ([]byte, int) {
	switch c := s[0]; c {
	case '"', '\\':
		return append(b, '\\', c), 1
	case '\n':
		return append(b, `\n`...), 1
	case '\r':
		return append(b, `\r`...), 1
	case '\t':
		return append(b, `\t`...), 1
	default:
		if c < ' ' {
			return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf]), 1
		}
	}
	switch r, size := utf8.DecodeRuneInString(s); {
	case r == utf8.RuneError && size == 1:
		return append(b, `\ufffd`...), 1
	case r == '\u2028' || r == '\u2029':
		return append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf]), size
	default:
		return append(b, s[:size]...), size
	}
}
