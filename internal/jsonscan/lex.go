package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// plain marks the bytes a string holds without a closer look: all but the
// quote, the backslash and the control characters. Invalid UTF-8 is plain,
// as encoding/json's Valid accepts it. Read only.
var plain = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// str reads a string at the opening quote and reports whether it holds an
// escape.
func (s *Scanner) str() (escaped bool, err error) {
	d, i := s.data, s.pos+1
	for {
		i = skipPlain(d, i)
		if i == len(d) {
			s.pos = i
			return false, s.syntax("unexpected end of JSON input")
		}
		switch d[i] {
		case '"':
			s.pos = i + 1
			return escaped, nil
		case '\\':
			escaped = true
			n := escapeLen(d[i:])
			if n == 0 {
				s.pos = i + 1
				return false, s.syntax("invalid escape in string")
			}
			i += n
		default:
			s.pos = i
			return false, s.syntax("invalid character in string")
		}
	}
}

// escapeLen returns the length of the escape at the start of b, or 0 when
// it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if hexVal(c) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

func hexVal(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// literal reads true, false or null.
func (s *Scanner) literal(word string) error {
	end := s.pos + len(word)
	if end > len(s.data) || string(s.data[s.pos:end]) != word {
		for i := 0; i < len(word) && s.pos < len(s.data) && s.data[s.pos] == word[i]; i++ {
			s.pos++
		}
		if s.pos == len(s.data) {
			return s.syntax("unexpected end of JSON input")
		}
		return s.syntax("invalid character in literal")
	}
	s.pos = end
	return nil
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; what
// follows it is judged by the caller.
func (s *Scanner) number() error {
	d := s.data
	if s.pos < len(d) && d[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(d) && d[s.pos] == '0':
		s.pos++
	case s.pos < len(d) && '1' <= d[s.pos] && d[s.pos] <= '9':
		s.digits()
	default:
		return s.expected("a value")
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		if !s.digits() {
			return s.expected("a digit after the decimal point")
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		if !s.digits() {
			return s.expected("a digit in the exponent")
		}
	}
	return nil
}

// digits reads [0-9]* and reports whether it read any.
func (s *Scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}

func (s *Scanner) expected(what string) error {
	if s.pos == len(s.data) {
		return s.syntax("unexpected end of JSON input")
	}
	return s.syntax("invalid character, expected " + what)
}

// skipPlain returns the index of the first byte of d from i on that is
// not plain (plain's), or len(d). It reads eight bytes at a time, and
// finds the quote, the backslash and the control characters in a word
// with the usual bit tricks: a byte's test may be wrong only above a byte
// it rightly flags (a borrow), so the lowest flag is the first such byte.
func skipPlain(d []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q, b := x^(ones*'"'), x^(ones*'\\')
		if m := ((x-ones*0x20)&^x | (q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(d) && plain[d[i]] {
		i++
	}
	return i
}
