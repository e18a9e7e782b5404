package responses

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/fixture"
)

// TestChatGolden translates every request fixture (and the extra
// requests in testdata/requests) to a chat body, or to the error that
// refuses it.
func TestChatGolden(t *testing.T) {
	files := append(fixture.Glob(t, "testdata/fixtures/request_*.json"), fixture.Glob(t, "testdata/requests/*.json")...)
	files = append(files, fixture.Glob(t, "testdata/fixtures/input_tokens_request.json")...)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			golden(t, filepath.Join("chat", name+".golden"), chatOf(t, fixture.Read(t, f)))
		})
	}
}

// chatOf renders Parse and Chat of body for a golden file.
func chatOf(t *testing.T, body []byte) []byte {
	r, err := Parse(body)
	if err == nil {
		var b []byte
		if b, err = r.Chat(); err == nil {
			return fixture.Indent(t, b)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *FieldError", err)
	}
	b, _ := json.Marshal(fe)
	return append(b, '\n')
}

func TestHistoryGoesBeforeInput(t *testing.T) {
	r := parse(t, "testdata/fixtures/request_function_call_output_previous_response_id.json")
	out := fixture.Read(t, "testdata/fixtures/response_function_call.json")
	var resp struct{ Output []json.RawMessage }
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	prev := parse(t, "testdata/fixtures/request_function_tools.json")
	r.SetHistory(append(prev.InputItems(), resp.Output...))
	golden(t, "chat/history_previous_response_id.golden", chatOf2(t, r))
}

func chatOf2(t *testing.T, r *Request) []byte {
	b, err := r.Chat()
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Indent(t, b)
}

func TestInputItems(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"model":"m","input":"hi"}`, `[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]`},
		{`{"model":"m","input":[{"role":"user", "content":"hi"}]}`, `[{"type":"message","role":"user","content":"hi"}]`},
		{`{"model":"m","input":[{"type":null,"role":"user","content":"hi"}]}`, `[{"type":"message","role":"user","content":"hi"}]`},
		{`{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":"x"}]}`, `[{"type":"function_call_output","call_id":"c","output":"x"}]`},
	}
	for _, tt := range tests {
		r, err := Parse([]byte(tt.body))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.body, err)
		}
		got, _ := json.Marshal(r.InputItems())
		if string(got) != tt.want {
			t.Errorf("InputItems(%s) = %s, want %s", tt.body, got, tt.want)
		}
	}
}
