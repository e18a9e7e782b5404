package api

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNativeResponseBody: what an upstream serving the Responses API gets
// is self-contained: the context in input, no previous_response_id,
// store off, reasoning's encrypted content included.
func TestNativeResponseBody(t *testing.T) {
	context := []json.RawMessage{json.RawMessage(`{"type":"message","role":"user","content":"a"}`),
		json.RawMessage(`{"id":"msg_1","type":"message","role":"assistant","content":[]}`)}
	tests := []struct {
		name, body, want string
	}{
		{"continued",
			`{"model":"m","previous_response_id":"resp_1","input":"b","store":true,"include":["message.output_text.logprobs"]}`,
			`{"model":"m","input":[{"type":"message","role":"user","content":"a"},{"id":"msg_1","type":"message","role":"assistant","content":[]}],"store":false,"include":["message.output_text.logprobs","reasoning.encrypted_content"]}`},
		{"include null",
			`{"model":"m","input":"b","include":null}`,
			`{"model":"m","input":[{"type":"message","role":"user","content":"a"},{"id":"msg_1","type":"message","role":"assistant","content":[]}],"include":["reasoning.encrypted_content"],"store":false}`},
		{"included already",
			`{"model":"m","input":"b","include":["reasoning.encrypted_content"],"store":false}`,
			`{"model":"m","input":[{"type":"message","role":"user","content":"a"},{"id":"msg_1","type":"message","role":"assistant","content":[]}],"include":["reasoning.encrypted_content"],"store":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nativeResponseBody([]byte(tt.body), context)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			json.Unmarshal([]byte(tt.want), &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListed: string message content becomes one text part, and items
// without an id get one, first, the same on every read.
func TestListed(t *testing.T) {
	l := []json.RawMessage{
		json.RawMessage(`{"type":"message","role":"user","content":"hi"}`),
		json.RawMessage(`{"type":"message","role":"assistant","content":"yo"}`),
		json.RawMessage(`{"id":"fc_1","type":"function_call","call_id":"c","name":"f","arguments":"{}"}`),
		json.RawMessage(`{ }`),
	}
	listed(l, "resp_abc")
	want := []string{
		`{"id":"item_abc_0","type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
		`{"id":"item_abc_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"yo"}]}`,
		`{"id":"fc_1","type":"function_call","call_id":"c","name":"f","arguments":"{}"}`,
		`{"id":"item_abc_3"}`,
	}
	var got []string
	for _, it := range l {
		got = append(got, string(it))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
}
