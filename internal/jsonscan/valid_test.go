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

// member is one top-level member as Members or gjson's ForEach reads it.
type member struct{ key, raw string }

// gjsonMembers reads the top-level members of a valid object with gjson,
// the reader Members replaces in the stream relay.
func gjsonMembers(obj string) []member {
	var ms []member
	gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
		ms = append(ms, member{k.Str, v.Raw})
		return true
	})
	return ms
}

// TestMembers reads the members of valid texts as gjson does, and refuses
// what encoding/json refuses, with Check's error.
func TestMembers(t *testing.T) {
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
		if err := Members(text, func(k, v string) { got = append(got, member{k, v}) }); err != nil {
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
		err := Members(text, func(string, string) {})
		want := Check([]byte(text), Options{})
		var syn *SyntaxError
		if !errors.As(err, &syn) || fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("%.40s: got %v, want %v", text, err, want)
		}
	}
	// The deepest nesting accepted is Check's.
	deepest := `{"a":` + strings.Repeat(`[`, MaxDepth-1) + strings.Repeat(`]`, MaxDepth-1) + `}`
	if err := Members(deepest, func(string, string) {}); err != nil || !json.Valid([]byte(deepest)) {
		t.Errorf("nesting of MaxDepth: %v", err)
	}
}

// FuzzMembers: Members accepts what encoding/json accepts, with Check's
// error otherwise, and reads a valid object's members as gjson does (a
// key with an escape decoded as encoding/json decodes it).
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"a":"b\n","c":[{"d":"]"}],"e":1.5}`, `{ "x" : null }`, `{}`, `[1,{"a":[]}]`, `{"k\u00e9y":1}`,
		`{"choices":[{"delta":{"content":"x"}}],"usage":null}`, `{"a":1,}`, `{"a":[1}`, "{\"\xff\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []member
		err := Members(string(data), func(k, v string) { got = append(got, member{k, v}) })
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
			// key differently; Members decodes as encoding/json does.
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
