package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
)

func TestStreamText(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	for _, usage := range []bool{true, false} {
		r := request(flash, `{"messages":[{"role":"user","content":"Say hi"}],"stream":true,"max_tokens":4}`)
		r.Stream, r.IncludeUsage = true, usage
		got, u, err := chunks(t, c, r)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"role":"assistant","content":"","refusal":null}`, got[0].Get("choices.0.delta").Raw); diff != "" {
			t.Errorf("role chunk (-want +got):\n%s", diff)
		}
		var text string
		for _, ch := range got {
			text += ch.Get("choices.0.delta.content").Str
			if ch.Get("usage").Exists() != usage {
				t.Errorf("usage=%v: chunk %s", usage, ch.Raw)
			}
			if ch.Get("model").Str != "client-gemini-2.5-flash" {
				t.Errorf("model: %s", ch.Raw)
			}
		}
		if text != "You said: Say hi" {
			t.Errorf("text = %q", text)
		}
		n := len(got)
		if usage {
			n--
			if got[n].Get("choices.#").Int() != 0 || got[n].Get("usage.total_tokens").Int() != int64(u.TotalTokens) || u.TotalTokens == 0 {
				t.Errorf("usage chunk %s, usage %+v", got[n].Raw, u)
			}
		}
		if f := got[n-1]; f.Get("choices.0.finish_reason").Str != "length" || f.Get("choices.0.delta").Raw != "{}" {
			t.Errorf("finish chunk %s", f.Raw)
		}
	}
}

// TestStreamGemini3Calls: Gemini 3 sends each call in its own event and
// STOP after them; the client must see tool_calls with running indexes.
func TestStreamGemini3Calls(t *testing.T) {
	_, c := setup(t, fakegemini.Options{})
	r := request(flash3, `{"messages":[{"role":"user","content":"Weather? fake:parallel"}],"tools":`+weatherTool+`,"stream":true}`)
	r.Stream = true
	got, _, err := chunks(t, c, r)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int64
	for _, ch := range got {
		for _, tc := range ch.Get("choices.0.delta.tool_calls").Array() {
			idx = append(idx, tc.Get("index").Int())
		}
	}
	if diff := cmp.Diff([]int64{0, 1}, idx); diff != "" {
		t.Errorf("tool call indexes (-want +got):\n%s", diff)
	}
	if f := got[len(got)-1].Get("choices.0.finish_reason").Str; f != "tool_calls" {
		t.Errorf("finish_reason = %q, want tool_calls", f)
	}
	if got[0].Get("choices.0.delta.content").Type != gjson.Null {
		t.Errorf("first chunk: %s", got[0].Raw)
	}
}

// TestStreamMidstreamError: an error after the first events, sent as a
// data event or as a bare pretty-printed block, ends the stream with
// Gemini's error (message and status) after the chunks sent so far.
func TestStreamMidstreamError(t *testing.T) {
	for _, lf := range []bool{false, true} {
		_, c := setup(t, fakegemini.Options{LF: lf})
		for _, trigger := range []string{"fake:midstream-error", "fake:midstream-bare-error"} {
			r := request(flash, `{"messages":[{"role":"user","content":"`+trigger+`"}]}`)
			got, _, err := chunks(t, c, r)
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.KindUnavailable || len(got) == 0 {
				t.Fatalf("%s (LF %v): got %d chunks, error %v; want chunks then KindUnavailable", trigger, lf, len(got), err)
			}
			if pe.Type != "INTERNAL" || !strings.HasPrefix(pe.Message, "An internal error has occurred.") {
				t.Errorf("%s (LF %v): %+v, want Gemini's status and message", trigger, lf, pe)
			}
		}
	}
}
