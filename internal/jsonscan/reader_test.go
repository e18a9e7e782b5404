package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// readMembers reads text with a Reader, calling f with the key and raw
// value of each of its top-level members: what the stream relay reads.
func readMembers(text string, f func(key, raw string)) error {
	r := NewReader(text)
	err := r.Object(func(key string) error {
		raw, err := r.Skip()
		if err == nil {
			f(key, raw)
		}
		return err
	})
	if err != nil {
		return err
	}
	return r.End()
}

// member is one top-level member as readMembers or gjson's ForEach reads it.
type member struct{ key, raw string }

// gjsonMembers reads the top-level members of a valid object with gjson,
// the reader a Reader replaces in the stream relay.
func gjsonMembers(obj string) []member {
	var ms []member
	gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
		ms = append(ms, member{k.Str, v.Raw})
		return true
	})
	return ms
}

// TestReaderMembers: a Reader reads the members of valid texts as gjson does, and refuses
// what encoding/json refuses, with Check's error.
func TestReaderMembers(t *testing.T) {
	valid := []string{
		`{}`, ` { } `, `[]`, `"s"`, `1`, `[{"a":1}]`, ` null `,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m",` +
			`"choices":[{"index":0,"delta":{"content":"Hi \"there\"\n"},"finish_reason":null}],"usage":null}`,
		`{"a":1,"b":-2.5e3,"c":true,"d":false,"e":null,"a":2}`,
		`{"s":"x\"y\\","o":{"k":[1,"]}",{"z":"}"}]},"a":[],"n":{}}`,
		"{\n\t\"a\" :\r\n \"b\" ,\"c\":[ 1 , 2 ] }",
		`{"mod\u0065l":"escaped key","x_gr\u006fq":{}}`,
		`{"deep":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`,
		`{"deep":` + strings.Repeat(`{"a":[`, 70) + strings.Repeat(`]}`, 70) + `}`,
	}
	for _, text := range valid {
		var got []member
		if err := readMembers(text, func(k, v string) { got = append(got, member{k, v}) }); err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if want := gjsonMembers(text); gjson.Parse(text).IsObject() && !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", text, got, want)
		}
		if !gjson.Parse(text).IsObject() && got != nil {
			t.Errorf("%s: members %q of a value that is not an object", text, got)
		}
	}
	invalid := []string{
		``, ` `, `{`, `{"a":1`, `{"a" 1}`, `{"a":"x}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{a:1}`,
		`{"a":[1,]}`, `{"a":[1}`, `{"a":{"b":1]}`, `{"a":"\q"}`, "{\"a\":\"\x01\"}", `{"a":01}`,
		`{"a":tru}`, `{"a":1.}`, `[1 2]`, `{"a":{"b" 1}}`, `{"a":{"b":1,"c"}}`, `{"a":[{]}`,
		`{"a":` + strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth) + `}`,
		strings.Repeat(`[`, MaxDepth+1) + strings.Repeat(`]`, MaxDepth+1),
	}
	for _, text := range invalid {
		err := readMembers(text, func(string, string) {})
		want := Check([]byte(text), Options{})
		var syn *SyntaxError
		if !errors.As(err, &syn) || fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("%.40s: got %v, want %v", text, err, want)
		}
	}
	// The deepest nesting accepted is Check's.
	deepest := `{"a":` + strings.Repeat(`[`, MaxDepth-1) + strings.Repeat(`]`, MaxDepth-1) + `}`
	if err := readMembers(deepest, func(string, string) {}); err != nil || !json.Valid([]byte(deepest)) {
		t.Errorf("nesting of MaxDepth: %v", err)
	}
}

// FuzzReaderMembers: a Reader accepts what encoding/json accepts, with Check's
// error otherwise, and reads a valid object's members as gjson does (a
// key with an escape decoded as encoding/json decodes it).
func FuzzReaderMembers(f *testing.F) {
	for _, s := range []string{
		`{"a":"b\n","c":[{"d":"]"}],"e":1.5}`, `{ "x" : null }`, `{}`, `[1,{"a":[]}]`, `{"k\u00e9y":1}`,
		`{"choices":[{"delta":{"content":"x"}}],"usage":null}`, `{"a":1,}`, `{"a":[1}`, "{\"\xff\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []member
		err := readMembers(string(data), func(k, v string) { got = append(got, member{k, v}) })
		if !json.Valid(data) {
			if want := Check(data, Options{}); err == nil || fmt.Sprint(err) != fmt.Sprint(want) {
				t.Fatalf("%q: got %v, want %v", data, err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, but json.Valid accepts it", data, err)
		}
		text := string(data)
		if !gjson.Parse(text).IsObject() {
			if got != nil {
				t.Fatalf("%q: members %q of a value that is not an object", data, got)
			}
			return
		}
		want := gjsonMembers(text)
		i := 0
		gjson.Parse(text).ForEach(func(k, _ gjson.Result) bool {
			// gjson and encoding/json decode invalid UTF-8 in an escaped
			// key differently; a Reader decodes as encoding/json does.
			if strings.Contains(k.Raw, `\`) {
				json.Unmarshal([]byte(k.Raw), &want[i].key)
			}
			i++
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", data, got, want)
		}
	})
}

// readAll reads the value at r descending into every object and array,
// and returns its scalars and keys in order; every other value is left
// for the Reader to skip, when skipOdd, to read those paths too.
func readAll(r *Reader, skipOdd bool) (out []string, err error) {
	var read func() error
	read = func() error {
		switch r.Peek() {
		case '{':
			return r.Object(func(key string) error {
				out = append(out, "key:"+key)
				if skipOdd && len(out)%2 == 1 {
					return nil // left unread: skipped
				}
				return read()
			})
		case '[':
			return r.Array(func() error {
				if skipOdd && len(out)%2 == 1 {
					out = append(out, "skipped")
					return nil
				}
				return read()
			})
		}
		raw, err := r.Skip()
		out = append(out, raw)
		return err
	}
	if err := read(); err != nil {
		return out, err
	}
	return out, r.End()
}

// TestReader reads nested values, skipping those left unread, with
// Check's errors for invalid texts.
func TestReader(t *testing.T) {
	r := NewReader(` {"a":[1,{"b":"x\"y","c\u0064":null}],"e":{},"f":[]} `)
	got, err := readAll(&r, false)
	want := []string{"key:a", "1", "key:b", `"x\"y"`, "key:cd", "null", "key:e", "key:f"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	r = NewReader(`{"a":[1,{"b":2}],"c":{"d":[3]},"e":4,"g":[5,6,[7]]}`)
	got, err = readAll(&r, true)
	want = []string{"key:a", "key:c", "key:d", "key:e", "4", "key:g", "5", "skipped", "7"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("skipping: got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{`{"a":[1,}`, `[{"a" 1}]`, `{"a":{"b":[}}`, `[1]]`, `{"a":1`,
		strings.Repeat(`[`, MaxDepth+1) + strings.Repeat(`]`, MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth+1) + `1` + strings.Repeat(`}`, MaxDepth+1)} {
		for _, skipOdd := range []bool{false, true} {
			r := NewReader(bad)
			_, err := readAll(&r, skipOdd)
			if want := Check([]byte(bad), Options{}); err == nil || fmt.Sprint(err) != fmt.Sprint(want) {
				t.Errorf("%.40s: got %v, want %v", bad, err, want)
			}
		}
	}
}

// FuzzReader: reading into every value, or leaving some to be skipped,
// accepts what encoding/json accepts, with Check's error otherwise; the
// keys and scalars read into every value are encoding/json's tokens.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"x"}],"c":{}}`, `[[],[{}],"s"]`, `{"a":1,}`, `[1,]`, `{"a":{"b" 1}}`,
		`{"k\u00e9y":[-1.5e3,true,null,"\ud83d\ude00\n"],"a":{}}`, "{\"\xff\":\"\xfe\"}"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, skipOdd bool) {
		r := NewReader(text)
		got, err := readAll(&r, skipOdd)
		if !json.Valid([]byte(text)) {
			if want := Check([]byte(text), Options{}); err == nil || fmt.Sprint(err) != fmt.Sprint(want) {
				t.Fatalf("%q: got %v, want %v", text, err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, but json.Valid accepts it", text, err)
		}
		if skipOdd {
			return
		}
		got, want := decodedValues(t, got), jsonTokens(t, text)
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", text, got, want)
		}
	})
}

// decodedValues returns what readAll read, keys and raw scalars, in the
// form jsonTokens gives encoding/json's tokens.
func decodedValues(t *testing.T, read []string) []string {
	t.Helper()
	out := make([]string, 0, len(read))
	for _, v := range read {
		if key, ok := strings.CutPrefix(v, "key:"); ok {
			// A key without an escape is as written; encoding/json makes
			// each byte of invalid UTF-8 a U+FFFD, as a rune conversion does.
			out = append(out, "key:"+string([]rune(key)))
			continue
		}
		var tok any
		d := json.NewDecoder(strings.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&tok); err != nil {
			t.Fatalf("%q read: %v", v, err)
		}
		out = append(out, fmt.Sprintf("%T:%v", tok, tok))
	}
	return out
}

// jsonTokens returns the keys and scalars of a valid text as
// encoding/json's Decoder reads them, in order.
func jsonTokens(t *testing.T, text string) []string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var out []string
	var value func()
	value = func() {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		switch tok {
		case json.Delim('{'):
			for d.More() {
				key, _ := d.Token()
				out = append(out, "key:"+key.(string))
				value()
			}
			d.Token()
		case json.Delim('['):
			for d.More() {
				value()
			}
			d.Token()
		default:
			out = append(out, fmt.Sprintf("%T:%v", tok, tok))
		}
	}
	value()
	return out
}
