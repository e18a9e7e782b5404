// Package jsonscan checks a JSON text in one pass: that it is valid, exactly
// as encoding/json's Valid judges it, and that no object names a key twice.
//
// A gateway that reads a request with one parser (the first "model") and
// forwards it to an upstream that reads it with another (the last "model")
// serves one request and bills another. Refusing a duplicate key leaves a
// body with one reading for every decoder.
//
// Two keys are the same when they decode to the same string: escapes are
// undone ("mod\u0065l" is "model") and invalid UTF-8 becomes U+FFFD, as
// encoding/json decodes it (so "a\xff" and "a\xfe" are the same key).
// With Options.FoldTopLevel, keys of the top-level object are also the same
// when they differ only in letter case, as encoding/json matches struct
// fields ("model", "Model", "MODEL"; also "ſtream" and "stream").
//
// The scan is iterative (no recursion) and bounded at MaxDepth; an object's
// keys are compared linearly up to a few and through a hash set beyond, so
// hostile input costs linear time.
//
// A Reader checks a text as Check does, without the duplicates, while its
// caller reads some of its values (a streamed chunk's); EachMember and
// StringLen read parts of a text Check has passed, checking nothing.
package jsonscan

import (
	"fmt"
	"math"
)

// MaxDepth is the deepest nesting of arrays and objects accepted: the same
// bound as encoding/json's, so that validity agrees with json.Valid.
const MaxDepth = 10000

// Options change what counts as a duplicate.
type Options struct {
	// FoldTopLevel reports two keys of the top-level object that are equal
	// under encoding/json's case folding as duplicates.
	FoldTopLevel bool
}

// SyntaxError reports a text that is not valid JSON.
type SyntaxError struct {
	// Offset is the byte offset of the first byte that cannot be read.
	Offset int64
	msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.Offset) }

// DuplicateKeyError reports an object that names a key a second time.
type DuplicateKeyError struct {
	// Path names the second key from the top, in the style of OpenAI's
	// param: `model`, `messages[0].content`, `tools[1].function.name`.
	// Keys appear decoded and unquoted; a top-level array element is `[0]`.
	Path string
	// Key is the second key, decoded; First is the earlier one, which
	// differs from Key only when case folding made them the same.
	Key, First string
	// Offset is the byte offset of the second key's opening quote.
	Offset int64
}

func (e *DuplicateKeyError) Error() string {
	if e.First != e.Key {
		return fmt.Sprintf("duplicate key %q (same as %q) at offset %d", e.Path, e.First, e.Offset)
	}
	return fmt.Sprintf("duplicate key %q at offset %d", e.Path, e.Offset)
}

// Check reads data as one JSON value. It returns nil, a *SyntaxError or a
// *DuplicateKeyError: the first duplicate in document order, and only
// when the whole text is valid.
func Check(data []byte, opt Options) error { return NewScanner(opt).Check(data) }

// Scanner checks JSON texts, keeping its buffers from one text to the
// next (up to a bound). It is not safe for concurrent use.
type Scanner struct {
	fold   bool
	small  int // smallObject; less in tests, to reach the hash set
	data   []byte
	pos    int
	frames []frame // open arrays and objects, innermost last
	keys   []key   // keys of the open objects, innermost object's last
	arena  []byte  // decoded or folded keys that differ from their bytes
	buf    []byte  // scratch: the compared form of a key not kept
	cmp    []byte  // scratch: the compared form of an earlier key
	hashes hasher
	// dup is the first duplicate found. It is returned only when the
	// whole text is valid, and stops the comparing of keys.
	dup error
}

// NewScanner returns a Scanner that checks with opt.
func NewScanner(opt Options) *Scanner {
	return &Scanner{fold: opt.FoldTopLevel, small: smallObject,
		frames: make([]frame, 0, 16), keys: make([]key, 0, 64), arena: make([]byte, 0, 256)}
}

// Buffers larger than these are not kept after a Check.
const (
	keepFrames = 256
	keepKeys   = 4096
	keepArena  = 64 << 10
)

// Check is the package's Check with s's options and buffers. Inputs of
// 2 GiB or more are refused with a *SyntaxError.
func (s *Scanner) Check(data []byte) error {
	if len(data) >= math.MaxInt32 {
		return &SyntaxError{msg: "input too large"}
	}
	s.data, s.pos, s.dup = data, 0, nil
	err := s.run()
	for i := range s.frames {
		s.frames[i].seen, s.frames[i].more = nil, nil
	}
	s.data, s.frames, s.keys, s.arena = nil, s.frames[:0], s.keys[:0], s.arena[:0]
	if cap(s.frames) > keepFrames || cap(s.keys) > keepKeys || cap(s.arena) > keepArena || cap(s.buf)+cap(s.cmp) > keepArena {
		small := s.small
		*s = *NewScanner(Options{FoldTopLevel: s.fold})
		s.small = small
	}
	return err
}

// frame is one open array or object.
type frame struct {
	object bool
	n      int   // arrays: index of the current element
	cur    int32 // objects: offset of the current member's key
	first  int   // objects: index in keys of the object's first key
	arena  int   // objects: len(arena) when the object opened
	// Past smallObject keys, an object keeps the hashes of its keys in
	// seen and the offsets of the keys after the first smallObject in
	// more (their compared forms are made again to confirm a match).
	seen map[uint64]struct{}
	more []int32
}

func (s *Scanner) run() error {
	for {
		opened, err := s.value()
		if err != nil {
			return err
		}
		if opened {
			continue
		}
		more, err := s.next()
		if err != nil {
			return err
		}
		if !more {
			return s.dup
		}
	}
}

// value reads a value at the current position. For a non-empty array or
// object it reads only the opening (and an object's first key), and
// reports opened: the next value is the container's first element.
//
// A Reader's scalarOrOpen reads values as this does, but keeps no frame:
// value is not built on it because the extra call per value cost Check
// 5-15% (BenchmarkCheck, embeddings_batch the most).
func (s *Scanner) value() (opened bool, err error) {
	s.skipSpace()
	if s.pos == len(s.data) {
		return false, s.syntax("unexpected end of JSON input")
	}
	switch c := s.data[s.pos]; c {
	case '{', '[':
		if len(s.frames) == MaxDepth {
			return false, s.syntax("exceeded max depth")
		}
		s.frames = append(s.frames, frame{object: c == '{', first: len(s.keys), arena: len(s.arena)})
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == c+2 { // '}' or ']'
			s.pos++
			s.pop()
			return false, nil
		}
		if c == '{' {
			return true, s.member()
		}
		return true, nil
	case '"':
		_, err := s.str()
		return false, err
	case 't':
		return false, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return false, s.literal("null")
	default:
		return false, s.number()
	}
}

// next moves past the end of a value: it closes the containers that end
// there and reports more when another value (an element, or a member
// whose key is read) follows.
func (s *Scanner) next() (more bool, err error) {
	for {
		s.skipSpace()
		if len(s.frames) == 0 {
			if s.pos < len(s.data) {
				return false, s.syntax("invalid character after top-level value")
			}
			return false, nil
		}
		f := &s.frames[len(s.frames)-1]
		comma, err := s.after(f.object)
		switch {
		case err != nil:
			return false, err
		case comma && f.object:
			s.skipSpace()
			return true, s.member()
		case comma:
			f.n++
			return true, nil
		}
		s.pop()
	}
}

// after reads the comma or the closing bracket that follows an element
// of an object (obj) or an array, at the current position, and reports
// which: comma, or the container's end.
func (s *Scanner) after(obj bool) (comma bool, err error) {
	if s.pos == len(s.data) {
		return false, s.syntax("unexpected end of JSON input")
	}
	switch c := s.data[s.pos]; {
	case c == ',':
		s.pos++
		return true, nil
	case obj && c == '}', !obj && c == ']':
		s.pos++
		return false, nil
	}
	return false, s.syntax("invalid character after element")
}

// pop closes the innermost container, forgetting an object's keys.
func (s *Scanner) pop() {
	f := &s.frames[len(s.frames)-1]
	if f.object {
		s.keys = s.keys[:f.first]
		s.arena = s.arena[:f.arena]
		f.seen, f.more = nil, nil
	}
	s.frames = s.frames[:len(s.frames)-1]
}

// member reads an object member's key and colon.
func (s *Scanner) member() error {
	if s.pos == len(s.data) || s.data[s.pos] != '"' {
		return s.syntax("expected a string key")
	}
	start := s.pos
	escaped, err := s.str()
	if err != nil {
		return err
	}
	if s.dup == nil {
		s.dup = s.addKey(start, escaped)
	}
	s.skipSpace()
	if s.pos == len(s.data) || s.data[s.pos] != ':' {
		return s.syntax("expected ':' after object key")
	}
	s.pos++
	return nil
}

func (s *Scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *Scanner) syntax(msg string) error {
	return &SyntaxError{Offset: int64(s.pos), msg: msg}
}
