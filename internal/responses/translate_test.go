package responses

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Each case pairs a fixture request with a chat answer written for it
// (testdata/chat) and the fixture Response the gateway must return.
// OpenAI's encrypted_content cannot come out of a chat upstream, so the
// reasoning cases compare without it (TestThinkingEnvelope covers ours).
var answerCases = []struct {
	name, request string
	noEncrypted   bool
}{
	{"response_text_basic", "request_text_basic", false},
	{"response_function_call", "request_function_tools", false},
	{"response_function_call_final", "request_function_call_output_previous_response_id", false},
	{"response_json_schema", "request_json_schema", false},
	{"response_reasoning", "request_reasoning", true},
}

func TestResponseFixtures(t *testing.T) {
	for _, tc := range answerCases {
		t.Run(tc.name, func(t *testing.T) {
			want := fixture.Read(t, "testdata/fixtures/"+tc.name+".json")
			w := gjson.ParseBytes(want)
			var ids []string
			for _, it := range w.Get("output").Array() {
				ids = append(ids, it.Get("id").Str)
			}
			r := parse(t, "testdata/fixtures/"+tc.request+".json")
			tr := testTranslator(t, r, w.Get("id").Str, w.Get("created_at").Int(), w.Get("completed_at").Int(), ids)
			resp, err := tr.Response(&provider.Response{Body: fixture.Read(t, "testdata/chat/"+tc.name+".json")})
			if err != nil {
				t.Fatal(err)
			}
			got, exp := decode(t, resp.Body), decode(t, want)
			if tc.noEncrypted {
				got, exp = dropKey(got, "encrypted_content"), dropKey(exp, "encrypted_content")
			}
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
			assertKeyOrder(t, resp.Body)
		})
	}
}

// assertKeyOrder checks the Response members come in OpenAI's order.
func assertKeyOrder(t *testing.T, body []byte) {
	t.Helper()
	want := []string{"id", "object", "created_at", "status", "background", "completed_at", "error",
		"incomplete_details", "instructions", "max_output_tokens", "max_tool_calls", "model", "output",
		"parallel_tool_calls", "previous_response_id", "prompt_cache_key", "prompt_cache_retention",
		"reasoning", "safety_identifier", "service_tier", "store", "temperature", "text", "tool_choice",
		"tools", "top_logprobs", "top_p", "truncation", "usage", "user", "metadata"}
	var got []string
	gjson.ParseBytes(body).ForEach(func(k, _ gjson.Result) bool {
		got = append(got, k.Str)
		return true
	})
	if gjson.GetBytes(body, "completed_at").Exists() == false {
		want = append(want[:5], want[6:]...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("key order (-want +got):\n%s", diff)
	}
}

// Each case streams a chat stream written for a fixture stream through
// the translator and compares event by event.
var streamCases = []struct {
	name, request string
	noEncrypted   bool
}{
	{"stream_text", "request_stream_text", false},
	{"stream_function_call", "request_function_tools", false},
	{"stream_reasoning", "request_reasoning", true},
	{"stream_incomplete_max_output_tokens", "", false},
	{"stream_midstream_error", "", false},
}

func TestStreamFixtures(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			want := readSSE(t, "testdata/fixtures/"+tc.name+".sse")
			created := gjson.GetBytes(want[0], "response")
			r := streamRequest(t, tc.request, created)
			var ids []string
			for _, e := range want {
				if gjson.GetBytes(e, "type").Str == "response.output_item.added" {
					ids = append(ids, gjson.GetBytes(e, "item.id").Str)
				}
			}
			last := gjson.GetBytes(want[len(want)-1], "response")
			tr := testTranslator(t, r, created.Get("id").Str, created.Get("created_at").Int(), last.Get("completed_at").Int(), ids)
			got, err := drain(t, tr.Stream(readChunks(t, "testdata/chat/"+tc.name+".jsonl")))
			if tc.name == "stream_midstream_error" {
				if !errors.Is(err, errUpstream) {
					t.Fatalf("stream error = %v, want the upstream's", err)
				}
				want = want[:len(want)-2] // error and response.failed are the writer's (FailedEvents)
			} else if err != nil {
				t.Fatal(err)
			}
			compareEvents(t, want, got, tc.noEncrypted, tc.name != "stream_text" && tc.name != "stream_function_call" && tc.name != "stream_reasoning")
			checkAccumulator(t, got, err == nil)
		})
	}
}

// streamRequest is the fixture request of a stream case, or one made up
// from the echo of its response.created when the fixtures have none.
func streamRequest(t *testing.T, name string, created gjson.Result) *Request {
	if name != "" {
		return parse(t, "testdata/fixtures/"+name+".json")
	}
	body := `{"model":"gpt-4.1-mini","input":"Tell me a story.","stream":true`
	if n := created.Get("max_output_tokens"); n.Type == gjson.Number {
		body += `,"max_output_tokens":` + n.Raw
	}
	r, err := Parse([]byte(body + "}"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func compareEvents(t *testing.T, want, got [][]byte, noEncrypted, quirk bool) {
	t.Helper()
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) {
			t.Errorf("got %d events, want %d", len(got), len(want))
			return
		}
		w, g := decode(t, want[i]), decode(t, got[i])
		if quirk && i < 2 {
			// These fixtures' response.created already carries the error
			// or incomplete_details that come later; a real one has null.
			resp := w.(map[string]any)["response"].(map[string]any)
			resp["error"], resp["incomplete_details"] = nil, nil
		}
		if noEncrypted {
			w, g = dropKey(w, "encrypted_content"), dropKey(g, "encrypted_content")
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("event %d (%s) mismatch (-want +got):\n%s", i, gjson.GetBytes(want[i], "type").Str, diff)
		}
	}
}
