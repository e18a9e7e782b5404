package api

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPlainMessage checks the fast path of message validation: a message
// it passes is one the full check passes too, and the common shapes take
// it.
func TestPlainMessage(t *testing.T) {
	tests := []struct {
		msg   string
		plain bool
	}{
		{`{"role":"user","content":"hi"}`, true},
		{`{"role":"system","content":"be brief","name":"boss"}`, true},
		{`{"role":"developer","content":""}`, true},
		{`{"role":"assistant","content":"hello"}`, true},
		{`{"role":"assistant","content":"hello","tool_calls":null}`, false},
		{`{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`, false},
		{`{"role":"user","content":[{"type":"text","text":"hi"}]}`, false},
		{`{"role":"user","content":"hi","name":7}`, false},
		{`{"role":"user","content":null}`, false},
		{`{"role":"tool","content":"42","tool_call_id":"c"}`, false},
		{`{"role":"function","content":"42","name":"f"}`, false},
		{`{"role":"robot","content":"hi"}`, false},
		{`{"role":7,"content":"hi"}`, false},
		{`{"content":"hi"}`, false},
		{`"hi"`, false},
		// Issue 18: read without unescaping; escapes and spacing as gjson reads them.
		{`{"role":"user","content":"line\none \"quoted\" \u00e9\\"}`, true},
		{` { "content" : "hi" , "role" : "assistant" , "name" : null } `, true},
		{`{"role":"us\u0065r","content":"hi"}`, false},
		{`{"r\u006fle":"user","content":"hi"}`, false},
		{`{"role":"user","content":"hi","function_call":{"name":"f","arguments":"{\"a\":[1,{}]}"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			m := gjson.Parse(tt.msg)
			got := plainMessage(m)
			if got != tt.plain {
				t.Errorf("plainMessage = %v, want %v", got, tt.plain)
			}
			if e := checkMessage("messages[0]", m); got && e != nil {
				t.Errorf("plainMessage passes a message checkMessage refuses: %+v", e)
			}
		})
	}
}

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
		if !eachMember(obj, func(k, v string) bool { got = append(got, member{k, v}); return true }) {
			t.Errorf("%s: eachMember failed", obj)
			continue
		}
		gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool { want = append(want, member{k.Str, v.Raw}); return true })
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", obj, got, want)
		}
	}
	for _, bad := range []string{``, `[]`, `"s"`, `{"a":1`, `{"a" 1}`, `{"a":"x}`, `{"a":}`, `{"k\u0065y":1}`} {
		if eachMember(bad, func(string, string) bool { return true }) {
			t.Errorf("%s: eachMember succeeded", bad)
		}
	}
}

// FuzzEachMember: on any valid JSON object whose keys have no escapes,
// eachMember reads what gjson reads.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{"a":"b\n","c":[{"d":"]"}],"e":1.5}`, `{ "x" : null }`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, obj string) {
		if !json.Valid([]byte(obj)) || !gjson.Parse(obj).IsObject() {
			return
		}
		var got, want []string
		ok := eachMember(obj, func(k, v string) bool { got = append(got, k, v); return true })
		escapedKey := false
		gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
			escapedKey = escapedKey || strings.Contains(k.Raw, `\`)
			want = append(want, k.Str, v.Raw)
			return true
		})
		if ok == escapedKey || ok && !slices.Equal(got, want) {
			t.Errorf("%q: eachMember %v %q, gjson %q (escaped key %v)", obj, ok, got, want, escapedKey)
		}
	})
}
