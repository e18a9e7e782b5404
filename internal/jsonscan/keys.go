package jsonscan

import (
	"hash/maphash"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// smallObject is how many keys an object compares one by one; past it,
// the object's keys go into a hash set.
const smallObject = 16

// key is one key of an open object.
type key struct {
	raw      int32 // offset of its opening quote in data
	off, end int32 // its compared form: data[off:end], or arena[off:end]
	inArena  bool
}

func (s *Scanner) bytes(k key) []byte {
	if k.inArena {
		return s.arena[k.off:k.end]
	}
	return s.data[k.off:k.end]
}

// addKey records the key just read (its opening quote at raw) in the
// innermost object, or reports it as a duplicate.
func (s *Scanner) addKey(raw int, escaped bool) error {
	k := s.compared(raw, escaped)
	f := &s.frames[len(s.frames)-1]
	if i := s.find(f, s.bytes(k)); i >= 0 {
		return s.duplicate(s.keys[i], k)
	}
	s.keys = append(s.keys, k)
	return nil
}

// compared returns the key just read in the form it is compared in: its
// bytes when they are already its decoded form, otherwise its decoded
// (and, at the top level with FoldTopLevel, folded) form in the arena.
func (s *Scanner) compared(raw int, escaped bool) key {
	start, end := raw+1, s.pos-1
	content := s.data[start:end]
	top := s.fold && len(s.frames) == 1
	if !escaped && !top && isUTF8(content) {
		return key{raw: int32(raw), off: int32(start), end: int32(end)}
	}
	off := len(s.arena)
	if escaped || !isUTF8(content) {
		s.arena = appendDecoded(s.arena, content)
		content = s.arena[off:]
	}
	if top {
		mid := len(s.arena)
		s.arena = appendFolded(s.arena, content)
		s.arena = s.arena[:off+copy(s.arena[off:], s.arena[mid:])]
	}
	return key{raw: int32(raw), off: int32(off), end: int32(len(s.arena)), inArena: true}
}

// find returns the index in s.keys of the key of f equal to b, or -1,
// adding b to f's hash set once f has one.
func (s *Scanner) find(f *frame, b []byte) int {
	if f.seen == nil {
		if len(s.keys)-f.first < smallObject {
			return s.scan(f.first, b)
		}
		f.seen = make(map[uint64]struct{}, 4*smallObject)
		for _, k := range s.keys[f.first:] {
			f.seen[s.hashes.sum(s.bytes(k))] = struct{}{}
		}
	}
	h := s.hashes.sum(b)
	if _, ok := f.seen[h]; ok {
		// Equal hashes: a duplicate, or (rarely, and not on purpose:
		// the seed is random) a collision.
		if i := s.scan(f.first, b); i >= 0 {
			return i
		}
	}
	f.seen[h] = struct{}{}
	return -1
}

// scan compares b with the keys from s.keys[from] on.
func (s *Scanner) scan(from int, b []byte) int {
	for i := from; i < len(s.keys); i++ {
		if string(s.bytes(s.keys[i])) == string(b) {
			return i
		}
	}
	return -1
}

// hasher hashes keys with a seed made on first use.
type hasher struct {
	seed maphash.Seed
	ok   bool
}

func (h *hasher) sum(b []byte) uint64 {
	if !h.ok {
		h.seed, h.ok = maphash.MakeSeed(), true
	}
	return maphash.Bytes(h.seed, b)
}

// duplicate builds the error for second, a repeat of first in the
// innermost object.
func (s *Scanner) duplicate(first, second key) error {
	var p []byte
	for i, f := range s.frames {
		if !f.object {
			p = append(p, '[')
			p = strconv.AppendInt(p, int64(f.n), 10)
			p = append(p, ']')
			continue
		}
		k := second
		if i+1 < len(s.frames) {
			k = s.keys[s.frames[i+1].first-1] // the member being read
		}
		if len(p) > 0 {
			p = append(p, '.')
		}
		p = append(p, s.written(k)...)
	}
	return &DuplicateKeyError{Path: string(p), Key: s.written(second), First: s.written(first), Offset: int64(second.raw)}
}

// written returns k as written, decoded.
func (s *Scanner) written(k key) string {
	start := int(k.raw) + 1
	end := start
	for s.data[end] != '"' {
		if s.data[end] == '\\' {
			end++
		}
		end++
	}
	return string(appendDecoded(nil, s.data[start:end]))
}

func isUTF8(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// appendDecoded appends the string whose valid JSON content (without
// quotes) is src, decoded as encoding/json decodes it: escapes undone, an
// unpaired surrogate and each byte of invalid UTF-8 replaced by U+FFFD.
func appendDecoded(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\' && src[i+1] == 'u':
			r := hex4(src[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
					if d := utf16.DecodeRune(r, hex4(src[i+2:])); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		case c == '\\':
			dst = append(dst, unescape(src[i+1]))
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, r)
			} else {
				dst = append(dst, src[i:i+n]...)
			}
			i += n
		}
	}
	return dst
}

func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}

// appendFolded appends the valid UTF-8 src folded as encoding/json folds
// names to match struct fields: ASCII letters to upper case, other runes
// to the upper case of their lower case.
func appendFolded(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		dst = utf8.AppendRune(dst, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return dst
}
