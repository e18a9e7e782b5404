package jsonscan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestEachMember reads members as gjson's ForEach does, unescaping
// nothing: the same keys and raw values, in order.
func TestEachMember(t *testing.T) {
	objects := []string{
		`{}`, ` { } `,
		`{"a":1,"b":-2.5e3,"c":true,"d":false,"e":null}`,
		`{"s":"x\"y\\","o":{"k":[1,"]}",{"z":"}"}]},"a":[],"n":{}}`,
		"{\n\t\"a\" :\r\n \"b\" ,\"c\":[ 1 , 2 ] }",
		`{"content":"line\nbreak \u00e9\ud83d\ude00","role":"user"}`,
	}
	for _, obj := range objects {
		type member struct{ key, raw string }
		var got, want []member
		if !EachMember(obj, func(k, v string) bool { got = append(got, member{k, v}); return true }) {
			t.Errorf("%s: EachMember failed", obj)
			continue
		}
		gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool { want = append(want, member{k.Str, v.Raw}); return true })
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", obj, got, want)
		}
	}
	for _, bad := range []string{``, `[]`, `"s"`, `{"a":1`, `{"a" 1}`, `{"a":"x}`, `{"a":}`, `{"k\u0065y":1}`} {
		if EachMember(bad, func(string, string) bool { return true }) {
			t.Errorf("%s: EachMember succeeded", bad)
		}
	}
}

// FuzzEachMember: on any valid JSON object whose keys have no escapes,
// EachMember reads what gjson reads.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{"a":"b\n","c":[{"d":"]"}],"e":1.5}`, `{ "x" : null }`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, obj string) {
		if !json.Valid([]byte(obj)) || !gjson.Parse(obj).IsObject() {
			return
		}
		var got, want []string
		ok := EachMember(obj, func(k, v string) bool { got = append(got, k, v); return true })
		escapedKey := false
		gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
			escapedKey = escapedKey || strings.Contains(k.Raw, `\`)
			want = append(want, k.Str, v.Raw)
			return true
		})
		if ok == escapedKey || ok && !slices.Equal(got, want) {
			t.Errorf("%q: EachMember %v %q, gjson %q (escaped key %v)", obj, ok, got, want, escapedKey)
		}
	})
}

// TestStringLen measures strings as gjson unescapes them: escapes,
// surrogate pairs, lone surrogates (U+FFFD) and multi-byte text.
func TestStringLen(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain"`, `"ünïcödé"`, `"a\nb\t\"c\"\\\/\b\f\r"`, `"\u00e9\u20ac\u0041"`,
		`"\ud83d\ude00 pair"`, `"\ud83d lone"`, `"\ude00\u0041"`, `"\ud83d\u0041"`, `"\ud83d"`,
	} {
		if got, want := StringLen(raw), len(gjson.Parse(raw).Str); got != want {
			t.Errorf("StringLen(%s) = %d, want %d", raw, got, want)
		}
	}
}

// FuzzStringLen: StringLen of any valid JSON string is the length of
// gjson's unescaped copy.
func FuzzStringLen(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, `"é"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v := gjson.Parse(raw)
		if !json.Valid([]byte(raw)) || v.Type != gjson.String {
			return
		}
		if got, want := StringLen(v.Raw), len(v.Str); got != want { // Raw: without the spaces around
			t.Errorf("StringLen(%q) = %d, want %d", raw, got, want)
		}
	})
}
