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
	b = append(b, '"')
	for {
		n := safePrefix(s)
		b = append(b, s[:n]...)
		if n == len(s) {
			return append(b, '"')
		}
		var size int
		b, size = appendEscape(b, s[n:])
		s = s[n+size:]
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
func safePrefix(s string) int {
	i := 0
	for i < len(s) && jsonSafe[s[i]] {
		i++
	}
	return i
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
