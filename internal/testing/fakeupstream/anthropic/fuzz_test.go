package fakeanthropic

import (
	"encoding/json"
	"os"
	"testing"

	fixtures "github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// FuzzCheck: any body is refused with an error or answered with a valid
// message; nothing panics.
func FuzzCheck(f *testing.F) {
	for _, name := range fixtures.Glob(f, "testdata/messages_request_*.json") {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"model":"claude-fake-1","max_tokens":3,"stop_sequences":["d"],"tool_choice":{"type":"any"},"tools":[{"name":"f","input_schema":{"type":"object","required":["a",1],"properties":{"a":{"enum":[[]]}}}}],"messages":[{"role":"user","content":"x"}]}`))
	f.Add([]byte(`{"model":"claude-fake-1","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"output_config":{"format":{"type":"json_schema","schema":{"type":"object","required":["a"]}}},"messages":[{"role":"user","content":"x fake:redacted-thinking"}]}`))
	s := &Server{Server: &fakeupstream.Server{}, opt: Options{Words: defaultWords, CacheReadTokens: 3}}
	f.Fuzz(func(t *testing.T, body []byte) {
		q, err := parse(body)
		if err != nil {
			if _, ok := err.(*apiError); !ok {
				t.Fatalf("err = %v, want an *apiError", err)
			}
			return
		}
		b, err := json.Marshal(s.message(q, s.answerOf(q)))
		if err != nil || !json.Valid(b) {
			t.Fatalf("message: %v %s", err, b)
		}
	})
}
