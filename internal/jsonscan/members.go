package jsonscan

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// EachMember calls f with the key and the raw text of the value of each
// member of obj, a valid JSON object, in order, until f returns false.
// Unlike gjson's ForEach and Get it unescapes nothing: gjson makes an
// unescaped copy of every string value it hands out, and a message's
// content is most of a chat body, escapes included ("\n"), which made
// reading a body allocate twice its size (issue 18). It returns false,
// having called f for none or some members, when obj is not such an
// object or a key holds an escape: the caller then reads obj with gjson.
//
// It stays beside Reader because its callers read request bodies that
// the API has passed through Check (api/body.go): it checks nothing
// again, where a Reader judges every byte of every value, and
// EachMember only finds where each ends.
func EachMember(obj string, f func(key, raw string) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) && obj[i] == '"' {
		end := stringEnd(obj, i)
		if end < 0 {
			return false
		}
		key := obj[i+1 : end-1]
		for j := 0; j < len(key); j++ {
			if key[j] == '\\' {
				return false
			}
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		end = valueEnd(obj, i)
		if end < 0 {
			return false
		}
		if !f(key, obj[i:end]) {
			return true
		}
		i = skipSpace(obj, end)
		switch {
		case i < len(obj) && obj[i] == '}':
			return true
		case i < len(obj) && obj[i] == ',':
			i = skipSpace(obj, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at s[i], a
// quote, or -1 when it does not end.
func stringEnd(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the value starting at s[i], or -1
// when it does not end.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				if i = stringEnd(s, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// Member returns the raw text of the first member of obj named key, and
// whether EachMember could read obj; "" when it has no such member.
func Member(obj, key string) (raw string, ok bool) {
	ok = EachMember(obj, func(k, v string) bool {
		if k == key {
			raw = v
			return false
		}
		return true
	})
	return raw, ok
}

// StringLen returns the length of the JSON string raw (quotes included)
// once unescaped, exactly as gjson unescapes it (a lone surrogate is
// U+FFFD), without unescaping it.
func StringLen(raw string) int {
	if len(raw) < 2 {
		return 0
	}
	s, n := raw[1:len(raw)-1], 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] < ' ':
			return n
		case s[i] != '\\':
			n++
			continue
		}
		i++
		if i >= len(s) {
			return n
		}
		switch s[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			n++
			continue
		case 'u':
		default:
			return n
		}
		if i+5 > len(s) {
			return n
		}
		r := hex4rune(s[i+1:])
		i += 5
		if utf16.IsSurrogate(r) && len(s[i:]) >= 6 && s[i] == '\\' && s[i+1] == 'u' {
			r = utf16.DecodeRune(r, hex4rune(s[i+2:]))
			i += 6
		}
		if l := utf8.RuneLen(r); l > 0 {
			n += l
		} else {
			n += utf8.RuneLen(utf8.RuneError)
		}
		i-- // the loop steps past the escape's last digit
	}
	return n
}

// hex4rune reads four hex digits as gjson does (0 when they are not).
func hex4rune(s string) rune {
	v, _ := strconv.ParseUint(s[:4], 16, 64)
	return rune(v)
}
