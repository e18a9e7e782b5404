package fakeopenai

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// respEventsOf parses a Responses stream, checking its framing: each
// event an "event:" line naming the data's type, sequence numbers from 0,
// no [DONE]. It returns the data of each event.
func respEventsOf(t *testing.T, body string) []gjson.Result {
	t.Helper()
	if !strings.HasSuffix(body, "\n\n") || strings.Contains(body, "[DONE]") {
		t.Errorf("stream end: %q", body[max(0, len(body)-80):])
	}
	var out []gjson.Result
	for i, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		name, named := strings.CutPrefix(name, "event: ")
		d := gjson.Parse(data)
		if !ok || !named || !gjson.Valid(data) || d.Get("type").Str != name || d.Get("sequence_number").Int() != int64(i) {
			t.Fatalf("event %d: %q", i, ev)
		}
		out = append(out, d)
	}
	return out
}

// compact shortens a stream's types: runs of one delta type become one
// entry with a "*".
func compact(evs []gjson.Result) []string {
	var out []string
	for _, e := range evs {
		typ := e.Get("type").Str
		if strings.HasSuffix(typ, ".delta") {
			typ += "*"
			if len(out) > 0 && out[len(out)-1] == typ {
				continue
			}
		}
		out = append(out, typ)
	}
	return out
}

// doneItems are the items of the output_item.done events.
func doneItems(evs []gjson.Result) []string {
	var out []string
	for _, e := range evs {
		if e.Get("type").Str == "response.output_item.done" {
			out = append(out, e.Get("item").Raw)
		}
	}
	return out
}

func TestResponsesStream(t *testing.T) {
	s := start(t, Options{Words: 30})
	fixture := respEventsOf(t, respFixture(t, "stream_text.sse"))
	tests := []struct {
		name, body string
		want       []string // nil: as the fixture
	}{
		{"text", respFixture(t, "request_stream_text.json"), nil},
		{"incomplete", `{"model":"gpt-4o","input":"hi","stream":true,"max_output_tokens":16}`, nil},
		{"calls", `{"model":"gpt-4o","stream":true,"input":"go","tools":[{"type":"function","name":"a","parameters":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}]}`, []string{
			"response.created", "response.in_progress",
			"response.output_item.added", "response.function_call_arguments.delta*", "response.function_call_arguments.done", "response.output_item.done",
			"response.completed"}},
		{"reasoning", `{"model":"o4-mini","stream":true,"input":"why?","reasoning":{"summary":"auto"},"include":["reasoning.encrypted_content"]}`, []string{
			"response.created", "response.in_progress",
			"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta*",
			"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta*", "response.output_text.done",
			"response.content_part.done", "response.output_item.done",
			"response.completed"}},
		{"midstream error", `{"model":"gpt-4o","stream":true,"input":"fake:midstream-error"}`, []string{
			"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
			"response.output_text.delta*", "error", "response.failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, s, "/responses", tt.body)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d %s", r.status, r.body)
			}
			evs := respEventsOf(t, string(r.body))
			want := tt.want
			if want == nil {
				want = compact(fixture)
				if tt.name == "incomplete" {
					want[len(want)-1] = "response.incomplete"
				}
			}
			if diff := cmp.Diff(want, compact(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			last := evs[len(evs)-1].Get("response")
			if last.Get("status").Str == "failed" {
				return
			}
			var final []string
			for _, it := range last.Get("output").Array() {
				final = append(final, it.Raw)
			}
			if diff := cmp.Diff(doneItems(evs), final); diff != "" {
				t.Errorf("terminal output vs output_item.done (-done +terminal):\n%s", diff)
			}
			if !last.Get("usage.total_tokens").Exists() {
				t.Errorf("no usage: %s", last.Raw)
			}
		})
	}
}

// TestResponsesStreamKeys compares each event's keys with the fixture's.
func TestResponsesStreamKeys(t *testing.T) {
	s := start(t, Options{})
	want := respEventsOf(t, respFixture(t, "stream_text.sse"))
	r := post(t, s, "/responses", respFixture(t, "request_stream_text.json"))
	got := respEventsOf(t, string(r.body))
	byType := map[string]gjson.Result{}
	for _, e := range got {
		byType[e.Get("type").Str] = e
	}
	for _, w := range want {
		g := byType[w.Get("type").Str]
		if diff := cmp.Diff(keys(w), keys(g)); diff != "" {
			t.Errorf("%s keys (-want +got):\n%s", w.Get("type").Str, diff)
		}
		for _, sub := range []string{"item", "part", "response"} {
			if w.Get(sub).Exists() {
				if diff := cmp.Diff(keys(w.Get(sub)), keys(g.Get(sub))); diff != "" {
					t.Errorf("%s.%s keys (-want +got):\n%s", w.Get("type").Str, sub, diff)
				}
			}
		}
	}
}
