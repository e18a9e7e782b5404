package jsonscan

import "unsafe"

// Members checks that text is one valid JSON value, exactly as
// encoding/json's Valid judges it, and, when that value is an object,
// calls f with the key and the raw text of the value of each of
// its members, in order, duplicates included. It returns nil or a
// *SyntaxError, as Check would, and calls f for none or some members
// before an error. It does not look for duplicate keys.
//
// It serves a reader that both checks a text and looks at its top-level
// members, such as the relay of a streamed chunk: one pass over the text
// instead of a check and then a walk with gjson (issue 18). The key and
// raw are substrings of text: a key as written (invalid UTF-8 included,
// as gjson reads it), or a decoded copy when it holds an escape.
func Members(text string, f func(key, raw string)) error {
	// The scanner only reads its data.
	data := unsafe.Slice(unsafe.StringData(text), len(text))
	s := Scanner{data: data}
	s.skipSpace()
	if s.pos == len(data) || data[s.pos] != '{' {
		if err := s.skip(0); err != nil {
			return err
		}
		return s.end()
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(data) && data[s.pos] == '}' {
		s.pos++
		return s.end()
	}
	for {
		key, escaped, err := s.key()
		if err != nil {
			return err
		}
		s.skipSpace()
		start := s.pos
		if err := s.skip(1); err != nil {
			return err
		}
		f(decodedKey(key, escaped), text[start:s.pos])
		s.skipSpace()
		switch {
		case s.pos == len(data):
			return s.syntax("unexpected end of JSON input")
		case data[s.pos] == ',':
			s.pos++
			s.skipSpace()
		case data[s.pos] == '}':
			s.pos++
			return s.end()
		default:
			return s.syntax("invalid character after element")
		}
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
			if s.pos == len(s.data) {
				return s.syntax("unexpected end of JSON input")
			}
			c, obj := s.data[s.pos], open.object(n-1)
			if c == ',' {
				s.pos++
				if obj {
					s.skipSpace()
					if _, _, err := s.key(); err != nil {
						return err
					}
				}
				break
			}
			if obj && c != '}' || !obj && c != ']' {
				return s.syntax("invalid character after element")
			}
			s.pos++
			n--
		}
	}
}

// kinds tells the open containers of a value apart, one bit each (1: an
// object), in a word until they are more than 64 deep: no allocation
// for the nesting of real texts.
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
// object), nested in depth open containers.
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
