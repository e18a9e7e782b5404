package api

import (
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
