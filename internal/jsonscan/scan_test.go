package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   string
		fold bool
		path string // duplicate expected at this path; "" for none
	}{
		{"flat", `{"model":"gpt-4o-mini","stream":true}`, true, ""},
		{"smuggled model", `{"model":"gpt-4o-mini","messages":[],"model":"o1"}`, false, "model"},
		{"escaped", `{"model":"a","mod\u0065l":"b"}`, false, "model"},
		{"escaped both", `{"\u006dodel":"a","mod\u0065l":"b"}`, false, "model"},
		{"escaped slash", `{"a/b":1,"a\/b":2}`, false, "a/b"},
		{"surrogate pair", `{"😀":1,"\ud83d\ude00":2}`, false, "😀"},
		{"lone surrogates are U+FFFD", `{"\ud800":1,"\udfff":2}`, false, "\uFFFD"},
		{"surrogate then letter", `{"\ud800a":1,"\ufffda":2}`, false, "\uFFFDa"},
		{"invalid UTF-8 is U+FFFD", "{\"a\xff\":1,\"a\xfe\":2}", false, "a\uFFFD"},
		{"invalid UTF-8 vs escape", "{\"a\xff\":1,\"a\\ufffd\":2}", false, "a\uFFFD"},
		{"different keys", `{"a":1,"b":2,"A":3,"a ":4}`, false, ""},
		{"case differs, no fold", `{"model":"a","Model":"b"}`, false, ""},
		{"case differs, fold", `{"model":"a","Model":"b"}`, true, "Model"},
		{"long s folds to s", `{"stream":false,"ſtream":true}`, true, "ſtream"},
		{"kelvin folds to k", `{"max_tokens":1,"max_to\u212Aens":2}`, true, "max_to\u212Aens"},
		{"dotted capital I is not i", `{"id":1,"İd":2,"ıd":3}`, true, ""},
		{"fold only at the top", `{"messages":[{"Content":"a","content":"b"}]}`, true, ""},
		{"nested", `{"messages":[{"role":"user","content":"a","content":"b"}]}`, true, "messages[0].content"},
		{"second element", `{"tools":[{"function":{"name":"a"}},{"function":{"name":"a","name":"b"}}]}`, false, "tools[1].function.name"},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}`, false, ""},
		{"same key at two depths", `{"x":{"x":{"x":1}}}`, false, ""},
		{"key reused after a nested object", `{"a":{"b":1,"c":2},"b":1,"c":{"a":1},"a":2}`, false, "a"},
		{"array at the top", `[{"a":1},{"a":1,"a":2}]`, false, "[1].a"},
		{"nested arrays", `{"a":[[1],[2,{"k":1,"k":1}]]}`, false, "a[1][1].k"},
		{"empty key", `{"a":{"":1,"":2}}`, false, "a."},
		{"dotted key", `{"metadata":{"a.b":1,"a.b":2}}`, false, "metadata.a.b"},
		{"big object", bigObject(5000, ""), false, ""},
		{"big object, late duplicate", bigObject(5000, `"k17"`), false, "k17"},
		{"big object, duplicate of the last", bigObject(5000, `"k4999"`), false, "k4999"},
		{"big object, folded", bigObject(100, `"K3"`), true, "K3"},
		{"big nested object", `{"a":` + bigObject(200, `"k199"`) + `}`, false, "a.k199"},
	}
	for _, tt := range tests {
		for _, small := range []int{smallObject, 1} { // 1: every object past its first key in the hash set
			t.Run(fmt.Sprintf("%s/small=%d", tt.name, small), func(t *testing.T) {
				s := NewScanner(Options{FoldTopLevel: tt.fold})
				s.small = small
				checkDuplicate(t, tt.in, s.Check([]byte(tt.in)), tt.path)
			})
		}
	}
}

// checkDuplicate fails unless err is a duplicate at path in in (nil when
// path is "").
func checkDuplicate(t *testing.T, in string, err error, path string) {
	t.Helper()
	var dup *DuplicateKeyError
	switch {
	case path == "" && err != nil:
		t.Fatalf("got %v, want nil", err)
	case path == "":
	case !errors.As(err, &dup):
		t.Fatalf("got %v, want a duplicate at %q", err, path)
	case dup.Path != path:
		t.Errorf("path %q, want %q", dup.Path, path)
	case !strings.HasPrefix(in[dup.Offset:], `"`):
		t.Errorf("offset %d is not at a key", dup.Offset)
	}
}

// bigObject returns an object of n keys k0…, then extra (a key) if set.
func bigObject(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	if extra != "" {
		b.WriteString(extra + `:0,`)
	}
	b.WriteString(`"end":0}`)
	return b.String()
}

func TestDuplicateKeyErrorNames(t *testing.T) {
	err := Check([]byte(`{"Model":"a","mod\u0065l":"b"}`), Options{FoldTopLevel: true})
	var dup *DuplicateKeyError
	if !errors.As(err, &dup) {
		t.Fatalf("got %v", err)
	}
	if dup.Key != "model" || dup.First != "Model" || dup.Offset != 13 {
		t.Errorf("got %+v", dup)
	}
}

func TestSyntax(t *testing.T) {
	tests := []string{
		``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{a:1}`, `{'a':1}`,
		`[1,]`, `[,1]`, `[1 2]`, `01`, `-`, `-a`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x1`, `NaN`,
		`tru`, `trueX`, `nul`, `"abc`, `"a\x"`, `"\u12"`, `"\u12G4"`, "\"a\tb\"", "\"a\nb\"",
		`{"a":1,"a":2`, `{"a":1,"a":2}}`, // a duplicate, then a syntax error
		`{"a":1}}`, `{"a":1} {}`, `[]]`, `{"a":1`, `"\`, `{"\`, `[`,
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	}
	for _, in := range tests {
		t.Run(in[:min(len(in), 20)], func(t *testing.T) {
			err := Check([]byte(in), Options{})
			var syn *SyntaxError
			if !errors.As(err, &syn) {
				t.Fatalf("got %v, want a syntax error", err)
			}
			if json.Valid([]byte(in)) {
				t.Errorf("json.Valid accepts it")
			}
			if syn.Offset < 0 || syn.Offset > int64(len(in)) {
				t.Errorf("offset %d outside the input", syn.Offset)
			}
		})
	}
}

func TestValid(t *testing.T) {
	tests := []string{
		`{}`, `[]`, `0`, `-0`, `-0.5e+10`, `1E-2`, `123`, `"x"`, `true`, `false`, `null`,
		" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n", `"\"\\\/\b\f\n\r\t\u00e9"`, "\"\xff\xfe\"",
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	}
	for _, in := range tests {
		t.Run(in[:min(len(in), 20)], func(t *testing.T) {
			if err := Check([]byte(in), Options{FoldTopLevel: true}); err != nil {
				t.Errorf("got %v", err)
			}
			if !json.Valid([]byte(in)) {
				t.Errorf("json.Valid refuses it")
			}
		})
	}
}

// TestManyKeys: a 32 MiB object of a million keys (and one duplicate at
// its end) is checked in linear time; a linear search per key would take
// minutes.
func TestManyKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the million-key object is not checked")
	}
	var b strings.Builder
	b.WriteByte('{')
	const n = 1_000_000
	for i := range n {
		fmt.Fprintf(&b, `"key-%07d":"%020d",`, i, i)
	}
	b.WriteString(`"key-0000000":0}`)
	in := []byte(b.String())
	err := Check(in, Options{FoldTopLevel: true})
	var dup *DuplicateKeyError
	if !errors.As(err, &dup) || dup.Path != "key-0000000" {
		t.Fatalf("got %v", err)
	}
	if err := Check(in[:len(in)-len(`"key-0000000":0}`)-1], Options{}); err == nil {
		t.Fatal("a truncated object passed")
	}
}

// TestFoldEveryRune: two runes fold to the same rune exactly when
// bytes.EqualFold (encoding/json's test for a struct field's name) holds.
func TestFoldEveryRune(t *testing.T) {
	classes := map[rune]rune{} // folded form → a rune of that form
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			f := foldRune(r)
			if r < utf8.RuneSelf {
				f = rune(appendFolded(nil, []byte{byte(r)})[0])
			}
			if first, ok := classes[f]; ok && !bytes.EqualFold([]byte(string(first)), []byte(string(r))) {
				t.Fatalf("%q and %q fold alike, but bytes.EqualFold tells them apart", first, r)
			}
			classes[f] = r
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if a, b := string(appendFolded(nil, []byte(string(r)))), string(appendFolded(nil, []byte(string(o)))); a != b {
				t.Fatalf("%q and %q are equal under bytes.EqualFold, but fold to %q and %q", r, o, a, b)
			}
		}
	}
}

// TestSkipPlain finds every byte that is not plain at every place in and
// after a word, past plain bytes of every kind (high bytes included),
// and with bytes of every kind after it (which the word tests may flag
// wrongly).
func TestSkipPlain(t *testing.T) {
	for c := range 256 {
		if plain[c] {
			continue
		}
		for at := range 20 {
			for _, fill := range []byte{'a', 0x7f, 0x80, 0xff, ' ', '!'} {
				d := bytes.Repeat([]byte{fill}, 24)
				d[at] = byte(c)
				for j := at + 1; j < len(d); j++ {
					d[j] = byte(j * 37) // anything after it
				}
				if got := skipPlain(d, 0); got != at {
					t.Fatalf("byte %#x at %d after %#x: got %d", c, at, fill, got)
				}
			}
		}
	}
	if got := skipPlain([]byte("plain text of some length"), 3); got != 25 {
		t.Errorf("no such byte: got %d, want 25", got)
	}
}
