package jsonscan

import "unsafe"

// Reader reads one JSON text a value at a time, checking it as it goes,
// exactly as Check does but without looking for duplicate keys, and
// unescaping nothing but keys that hold an escape: a reader that checks
// a text and looks at some of its values (a streamed chunk's members,
// and its choices') reads it once, rather than checking it and then
// walking it with gjson (issue 18). What it returns are substrings of
// the text, which must not change while they are in use.
type Reader struct {
	text  string
	s     Scanner // reads text in place
	depth int     // open containers
}

// NewReader returns a Reader at the start of text.
func NewReader(text string) Reader {
	return Reader{text: text, s: Scanner{data: unsafe.Slice(unsafe.StringData(text), len(text))}}
}

// Peek returns the first byte of the next value ('{', '[', '"', ...), or 0
// at the end of the text.
func (r *Reader) Peek() byte {
	r.s.skipSpace()
	if r.s.pos == len(r.s.data) {
		return 0
	}
	return r.s.data[r.s.pos]
}

// Skip reads the next value and returns its text.
func (r *Reader) Skip() (raw string, err error) {
	s := &r.s
	s.skipSpace()
	start := s.pos
	if start < len(s.data) && s.data[start] == '"' {
		_, err = s.str() // the usual value, read at once
	} else {
		err = s.skip(r.depth)
	}
	if err != nil {
		return "", err
	}
	return r.text[start:s.pos], nil
}

// End checks that only space follows the value read.
func (r *Reader) End() error { return r.s.end() }

// Object reads the next value. When it is an object, Object calls f with
// each of its keys, in order, duplicates included, for f to read the
// member's value with r; a value f leaves unread is skipped. A key is
// as written (invalid UTF-8 included, as gjson reads it), or a decoded
// copy when it holds an escape. Any other value is skipped.
func (r *Reader) Object(f func(key string) error) error {
	return r.open('{', func() error {
		key, escaped, err := r.s.key()
		if err != nil {
			return err
		}
		r.s.skipSpace()
		at := r.s.pos
		if err := f(decodedKey(key, escaped)); err != nil || r.s.pos != at {
			return err
		}
		_, err = r.Skip() // left unread
		return err
	})
}

// Array reads the next value. When it is an array, Array calls f for
// each of its elements, for f to read the element with r; an element f
// leaves unread is skipped. Any other value is skipped.
func (r *Reader) Array(f func() error) error {
	return r.open('[', func() error { return r.read(f) })
}

// read calls f to read the value at the current position, and skips it
// when f does not.
func (r *Reader) read(f func() error) error {
	at := r.s.pos
	if err := f(); err != nil || r.s.pos != at {
		return err
	}
	_, err := r.Skip()
	return err
}

// open reads a container that opens with c, calling item to read each
// of its items (an object's, from its key).
func (r *Reader) open(c byte, item func() error) error {
	s := &r.s
	if r.Peek() != c {
		_, err := r.Skip()
		return err
	}
	if r.depth == MaxDepth {
		return s.syntax("exceeded max depth")
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == c+2 { // '}' or ']'
		s.pos++
		return nil
	}
	r.depth++
	for {
		if err := item(); err != nil {
			return err
		}
		s.skipSpace()
		comma, err := s.after(c == '{')
		if err != nil {
			return err
		}
		if !comma {
			r.depth--
			return nil
		}
		s.skipSpace()
	}
}

// key reads an object member's key and its colon, and returns the key's
// content (between the quotes) and whether it holds an escape.
func (s *Scanner) key() (content []byte, escaped bool, err error) {
	if s.pos == len(s.data) || s.data[s.pos] != '"' {
		return nil, false, s.syntax("expected a string key")
	}
	start := s.pos
	if escaped, err = s.str(); err != nil {
		return nil, false, err
	}
	content = s.data[start+1 : s.pos-1]
	s.skipSpace()
	if s.pos == len(s.data) || s.data[s.pos] != ':' {
		return nil, false, s.syntax("expected ':' after object key")
	}
	s.pos++
	return content, escaped, nil
}

// decodedKey returns a key's content as a string: in place, or decoded
// as encoding/json decodes it when it holds an escape.
func decodedKey(content []byte, escaped bool) string {
	if escaped {
		return string(appendDecoded(nil, content))
	}
	return View(content)
}

// end checks that only space follows the top-level value.
func (s *Scanner) end() error {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.syntax("invalid character after top-level value")
	}
	return nil
}

// skip reads one value, nested in depth open containers, checking it as
// Check does but without keeping its keys.
func (s *Scanner) skip(depth int) error {
	var open kinds // the value's open containers
	n := 0
	for {
		opened, obj, err := s.scalarOrOpen(depth + n)
		if err != nil {
			return err
		}
		if opened {
			open.set(n, obj)
			n++
			if obj {
				if _, _, err := s.key(); err != nil {
					return err
				}
			}
			continue
		}
		// Close the containers that end after the value.
		for {
			if n == 0 {
				return nil
			}
			s.skipSpace()
			obj := open.object(n - 1)
			comma, err := s.after(obj)
			if err != nil {
				return err
			}
			if comma {
				if obj {
					s.skipSpace()
					if _, _, err := s.key(); err != nil {
						return err
					}
				}
				break
			}
			n--
		}
	}
}

// kinds tells the open containers of a value apart, one bit each (1: an
// object), in a word until they are more than 64 deep: no allocation
// for the nesting of real texts. It is what Check's frames know of a
// container and no more: a frame also holds an object's keys, for
// comparing them, which a Reader never does, and a Reader's Scanner has
// no frames to keep, so that reading a chunk allocates nothing.
type kinds struct {
	word uint64
	deep []uint64 // bits 64 on
}

// set makes the container at depth i an object or an array; those
// below it are set already.
func (k *kinds) set(i int, obj bool) {
	w := &k.word
	if i >= 64 {
		if j := i/64 - 1; j == len(k.deep) {
			k.deep = append(k.deep, 0)
		}
		w = &k.deep[i/64-1]
	}
	bit := uint64(1) << (i % 64)
	if obj {
		*w |= bit
	} else {
		*w &^= bit
	}
}

// object reports whether the container at depth i is an object.
func (k *kinds) object(i int) bool {
	w := k.word
	if i >= 64 {
		w = k.deep[i/64-1]
	}
	return w>>(i%64)&1 == 1
}

// scalarOrOpen reads a scalar or an empty container at the current
// position, or the opening of a non-empty one (opened; obj for an
// object), nested in depth open containers: Scanner.value for a Reader,
// which keeps no frames.
func (s *Scanner) scalarOrOpen(depth int) (opened, obj bool, err error) {
	s.skipSpace()
	if s.pos == len(s.data) {
		return false, false, s.syntax("unexpected end of JSON input")
	}
	switch c := s.data[s.pos]; c {
	case '{', '[':
		if depth == MaxDepth {
			return false, false, s.syntax("exceeded max depth")
		}
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == c+2 { // '}' or ']'
			s.pos++
			return false, false, nil
		}
		return true, c == '{', nil
	case '"':
		_, err := s.str()
		return false, false, err
	case 't':
		return false, false, s.literal("true")
	case 'f':
		return false, false, s.literal("false")
	case 'n':
		return false, false, s.literal("null")
	default:
		return false, false, s.number()
	}
}
