package responses

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/envelope"
	"github.com/switchyard-gw/switchyard/internal/fixture"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

// extraRequest is the request of the extra answer and stream cases.
const extraRequest = `{"model":"claude-sonnet-4-5","input":"Weather?","reasoning":{"effort":"low"},
	"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}},{"type":"function","name":"get_time"}]}`

// sequentialIDs hands out prefix + a counter, for golden files.
func sequentialIDs() func(string) string {
	n := 0
	return func(prefix string) string {
		n++
		return prefix + strings.Repeat("0", 3) + string(rune('a'+n-1))
	}
}

func extraTranslator(t *testing.T) *Translator {
	r, err := Parse([]byte(extraRequest))
	if err != nil {
		t.Fatal(err)
	}
	tr := testTranslator(t, r, "resp_test", 1700000000, 1700000002, nil)
	tr.newID = sequentialIDs()
	return tr
}

func TestExtraResponses(t *testing.T) {
	for _, f := range fixture.Glob(t, "testdata/chat/extra_*.json") {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			resp, err := extraTranslator(t).Response(&provider.Response{Body: fixture.Read(t, f),
				Usage: provider.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}})
			if err != nil {
				t.Fatal(err)
			}
			assertKeyOrder(t, resp.Body)
			golden(t, filepath.Join("golden", name+".golden"), fixture.Indent(t, resp.Body))
		})
	}
}

func TestExtraStreams(t *testing.T) {
	for _, f := range fixture.Glob(t, "testdata/chat/extra_*.jsonl") {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			src := readChunks(t, f)
			src.usage = provider.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}
			st := extraTranslator(t).Stream(src)
			events, err := drain(t, st)
			if err != nil {
				t.Fatal(err)
			}
			checkAccumulator(t, events, true)
			if err := st.Close(); err != nil || !src.closed {
				t.Errorf("Close = %v, upstream closed %v", err, src.closed)
			}
			golden(t, filepath.Join("golden", name+".golden"), append(joinLines(events), '\n'))
		})
	}
}

func joinLines(events [][]byte) []byte {
	var b []byte
	for i, e := range events {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, e...)
	}
	return b
}

// TestThinkingEnvelope checks Anthropic thinking blocks come back as the
// reasoning item's envelope, byte-exact, and go upstream again as the
// next assistant turn's thinking_blocks.
func TestThinkingEnvelope(t *testing.T) {
	resp, err := extraTranslator(t).Response(&provider.Response{Body: fixture.Read(t, "testdata/chat/extra_thinking_tools.json")})
	if err != nil {
		t.Fatal(err)
	}
	rs := gjson.GetBytes(resp.Body, "output.0")
	p, blocks, err := envelope.Open(rs.Get("encrypted_content").Str)
	if err != nil || p != "anthropic" {
		t.Fatalf("envelope.Open = %q, %v", p, err)
	}
	want := gjson.GetBytes(fixture.Read(t, "testdata/chat/extra_thinking_tools.json"), "choices.0.message.thinking_blocks")
	if diff := cmp.Diff(decode(t, []byte(want.Raw)), decode(t, blocks)); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	// The client echoes the output as input: the blocks go back first in
	// the assistant turn.
	body := `{"model":"claude-sonnet-4-5","input":[{"role":"user","content":"Weather?"},` +
		rs.Raw + `,` + gjson.GetBytes(resp.Body, "output.1").Raw + `,` + gjson.GetBytes(resp.Body, "output.2").Raw +
		`,{"type":"function_call_output","call_id":"toolu_A","output":"rain"}]}`
	r, err := Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	chat, err := r.Chat()
	if err != nil {
		t.Fatal(err)
	}
	got := gjson.GetBytes(chat, "messages.1.thinking_blocks")
	if diff := cmp.Diff(decode(t, []byte(want.Raw)), decode(t, []byte(got.Raw))); diff != "" {
		t.Errorf("thinking_blocks sent upstream (-want +got):\n%s", diff)
	}
	if n := gjson.GetBytes(chat, "messages.#").Int(); n != 3 {
		t.Errorf("%d messages, want user, assistant, tool: %s", n, chat)
	}
}

func TestFailedEvents(t *testing.T) {
	want := readSSE(t, "testdata/fixtures/stream_midstream_error.sse")
	n := len(want)
	created, _ := extraCreated(t, want[0])
	got := FailedEvents(int(gjson.GetBytes(want[n-3], "sequence_number").Int()), created, "server_error",
		"The upstream model provider failed while generating the response.")
	if diff := cmp.Diff(string(want[n-2]), string(got[0])); diff != "" {
		t.Errorf("error event (-want +got):\n%s", diff)
	}
	// The failed response repeats response.created: its output is the
	// writer's to know, so it is [] here where the fixture lists the
	// partial message; the tier is the one asked for.
	w := decode(t, want[n-1])
	resp := w.(map[string]any)["response"].(map[string]any)
	resp["output"], resp["service_tier"] = []any{}, "auto"
	if diff := cmp.Diff(w, decode(t, got[1])); diff != "" {
		t.Errorf("response.failed (-want +got):\n%s", diff)
	}
	for _, e := range got {
		if !strings.HasPrefix(string(e), `{"type":"`) {
			t.Errorf("type is not first: %s", e)
		}
	}
}

// extraCreated returns the fixture's response.created as this package
// sends it: error null.
func extraCreated(t *testing.T, created []byte) ([]byte, error) {
	v := decode(t, created)
	v.(map[string]any)["response"].(map[string]any)["error"] = nil
	b := mustJSON(v)
	if !gjson.ValidBytes(b) {
		return nil, errors.New("invalid")
	}
	// mustJSON sorts keys; put type and sequence_number first again.
	return []byte(`{"type":"response.created","sequence_number":0,"response":` + gjson.GetBytes(b, "response").Raw + `}`), nil
}
