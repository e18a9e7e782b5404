package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
)

// FuzzCheck compares Check with encoding/json: it accepts exactly what
// json.Valid accepts, and it finds a duplicate exactly when decoding
// leaves some object with fewer keys than the text names (or, with
// FoldTopLevel, two top-level keys are equal under bytes.EqualFold, which
// is how encoding/json matches struct fields).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"model":"o1"}`,
		`{"mod\u0065l":1,"model":2}`, `{"\ud800":1,"\udc00":2}`, "{\"a\xff\":1,\"a\xfe\":2}",
		`{"stream":1,"ſtream":2}`, `{"k":1,"\u212A":2}`, `{"a":{"b":[{"c":1,"c":2}]}}`,
		`[1,2.5e-3,true,false,null,"x\n"]`, `{"a":1}x`, `01`, `{"a" 1}`, `"\u12"`, ``,
		bigObject(40, `"k39"`), bigObject(40, `"K39"`),
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fold bool) {
		err := Check(data, Options{FoldTopLevel: fold})
		// The same with every object past its first key in the hash set.
		s := NewScanner(Options{FoldTopLevel: fold})
		s.small = 1
		if err2 := s.Check(data); fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Fatalf("with the hash set from the second key: %v, without: %v", err2, err)
		}
		var syn *SyntaxError
		var dup *DuplicateKeyError
		valid := json.Valid(data)
		switch {
		case errors.As(err, &syn):
			if valid {
				t.Fatalf("syntax error %v, but json.Valid accepts %q", err, data)
			}
			return
		case !valid:
			t.Fatalf("got %v, but json.Valid refuses %q", err, data)
		case err != nil && !errors.As(err, &dup):
			t.Fatalf("unexpected error %T %v", err, err)
		}
		ref := referenceDuplicates(t, data, fold)
		if (dup != nil) != ref {
			t.Fatalf("Check says %v, encoding/json finds a duplicate: %v, in %q", err, ref, data)
		}
		if dup != nil && (dup.Offset < 0 || dup.Offset >= int64(len(data)) || data[dup.Offset] != '"') {
			t.Fatalf("offset %d is not a key's quote in %q", dup.Offset, data)
		}
	})
}

// referenceDuplicates reads valid data with encoding/json and reports
// whether some object names a key twice; when none does, it checks that
// decoding into maps keeps every key.
func referenceDuplicates(t *testing.T, data []byte, fold bool) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type obj struct {
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*obj
	var named int
	var top []string
	dup := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("valid text, but Token: %v", err)
		}
		var cur *obj
		if len(stack) > 0 {
			cur = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && cur != nil && cur.expect {
			named++
			dup = dup || cur.keys[s]
			cur.keys[s], cur.expect = true, false
			if len(stack) == 1 {
				top = append(top, s)
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &obj{keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		case json.Delim('['):
			stack = append(stack, &obj{})
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expect = true
		}
	}
	if !dup {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("valid text, but Unmarshal: %v", err)
		}
		if got := countKeys(v); got != named {
			t.Fatalf("no duplicates, but the decoded maps hold %d keys of %d", got, named)
		}
	}
	if fold && len(data) > 0 {
		for i := range top {
			for _, b := range top[:i] {
				dup = dup || bytes.EqualFold([]byte(top[i]), []byte(b))
			}
		}
	}
	return dup
}

func countKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += countKeys(e)
		}
	case []any:
		for _, e := range v {
			n += countKeys(e)
		}
	}
	return n
}
