package jsonscan

import (
	"hash/maphash"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// smallObject is how many keys an object keeps and compares one by one;
// past it, the object's keys go into a hash set.
const smallObject = 16

// key is one of the first smallObject keys of an open object.
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
	f := &s.frames[len(s.frames)-1]
	f.cur = int32(raw)
	top := s.fold && len(s.frames) == 1
	if f.seen == nil && len(s.keys)-f.first < s.small {
		k := key{raw: int32(raw), off: int32(raw + 1), end: int32(s.pos - 1)}
		if out, built := s.form(s.arena, raw+1, s.pos-1, escaped, top); built {
			k.off, k.end, k.inArena = int32(len(s.arena)), int32(len(out)), true
			s.arena = out
		}
		if i := s.scan(f.first, s.bytes(k)); i >= 0 {
			return s.duplicate(s.keys[i].raw, k.raw)
		}
		s.keys = append(s.keys, k)
		return nil
	}
	if f.seen == nil {
		f.seen = make(map[uint64]struct{}, 4*smallObject)
		for _, k := range s.keys[f.first:] {
			f.seen[s.hashes.sum(s.bytes(k))] = struct{}{}
		}
	}
	b := s.formAt(&s.buf, int32(raw), top)
	h := s.hashes.sum(b)
	if _, ok := f.seen[h]; ok {
		// Equal hashes: a duplicate, or (rarely, and not on purpose:
		// the seed is random) a collision.
		if first, found := s.match(f, b, top); found {
			return s.duplicate(first, int32(raw))
		}
	}
	f.seen[h] = struct{}{}
	f.more = append(f.more, int32(raw))
	return nil
}

// form returns the compared form of the key whose content (between the
// quotes) is data[start:end]: those bytes when they already are its
// decoded form (built false), else dst with its decoded form, folded when
// top, appended (built true).
func (s *Scanner) form(dst []byte, start, end int, escaped, top bool) (out []byte, built bool) {
	content := s.data[start:end]
	if !escaped && isUTF8(content) && (!top || isFolded(content)) {
		return content, false
	}
	off := len(dst)
	if escaped || !isUTF8(content) {
		dst = appendDecoded(dst, content)
		content = dst[off:]
	}
	if top {
		mid := len(dst)
		dst = appendFolded(dst, content)
		dst = dst[:off+copy(dst[off:], dst[mid:])]
	}
	return dst, true
}

// formAt returns the compared form of the key whose opening quote is at
// raw, built in *buf when it must be.
func (s *Scanner) formAt(buf *[]byte, raw int32, top bool) []byte {
	start := int(raw) + 1
	end, escaped := start, false
	for s.data[end] != '"' {
		if s.data[end] == '\\' {
			end++
			escaped = true
		}
		end++
	}
	out, built := s.form((*buf)[:0], start, end, escaped, top)
	if built {
		*buf = out
	}
	return out
}

// scan returns the index of the key from s.keys[from] on equal to b, or -1.
func (s *Scanner) scan(from int, b []byte) int {
	for i := from; i < len(s.keys); i++ {
		if string(s.bytes(s.keys[i])) == string(b) {
			return i
		}
	}
	return -1
}

// match finds the key of f, a large object, equal to b.
func (s *Scanner) match(f *frame, b []byte, top bool) (raw int32, found bool) {
	if i := s.scan(f.first, b); i >= 0 {
		return s.keys[i].raw, true
	}
	for _, r := range f.more {
		if string(s.formAt(&s.cmp, r, top)) == string(b) {
			return r, true
		}
	}
	return 0, false
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

// duplicate builds the error for the key at second, a repeat of the one
// at first in the innermost object.
func (s *Scanner) duplicate(first, second int32) error {
	var p []byte
	for _, f := range s.frames {
		if !f.object {
			p = append(p, '[')
			p = strconv.AppendInt(p, int64(f.n), 10)
			p = append(p, ']')
			continue
		}
		if len(p) > 0 {
			p = append(p, '.')
		}
		p = append(p, s.written(f.cur)...)
	}
	return &DuplicateKeyError{Path: string(p), Key: s.written(second), First: s.written(first), Offset: int64(second)}
}

// written returns the key at raw as written, decoded.
func (s *Scanner) written(raw int32) string {
	return string(s.formAt(new([]byte), raw, false))
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

// appendFolded appends the valid UTF-8 src folded so that two names fold
// to the same bytes exactly when encoding/json matches them to the same
// struct field, that is when bytes.EqualFold holds: each rune becomes the
// smallest of its case-folding orbit, an ASCII capital then its small
// letter ("ſ" and "S" become "s", the Kelvin sign "k").
func appendFolded(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

func foldRune(r rune) rune {
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			r = next
			break
		}
		r = next
	}
	if 'A' <= r && r <= 'Z' {
		r += 'a' - 'A'
	}
	return r
}

// isFolded reports whether b is ASCII without upper-case letters, and so
// its own folded form.
func isFolded(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
