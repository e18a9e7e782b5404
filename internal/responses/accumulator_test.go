package responses

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// knownEvents are the event types openai-node's accumulator accepts
// that a function-tool gateway can send.
var knownEvents = []string{"response.created", "response.in_progress", "response.output_item.added",
	"response.output_item.done", "response.content_part.added", "response.content_part.done",
	"response.output_text.delta", "response.output_text.done", "response.refusal.delta",
	"response.refusal.done", "response.function_call_arguments.delta",
	"response.function_call_arguments.done", "response.reasoning_summary_part.added",
	"response.reasoning_summary_part.done", "response.reasoning_summary_text.delta",
	"response.reasoning_summary_text.done", "response.completed", "response.incomplete"}

// deltaItemType is the item type each delta-like event belongs to.
var deltaItemType = map[string]string{
	"response.content_part.added": "message", "response.content_part.done": "message",
	"response.output_text.delta": "message", "response.output_text.done": "message",
	"response.refusal.delta": "message", "response.refusal.done": "message",
	"response.function_call_arguments.delta": "function_call", "response.function_call_arguments.done": "function_call",
	"response.reasoning_summary_part.added": "reasoning", "response.reasoning_summary_part.done": "reasoning",
	"response.reasoning_summary_text.delta": "reasoning", "response.reasoning_summary_text.done": "reasoning",
}

// accumulator replays events under the rules openai-node enforces
// (inbound-apis.md §3.4), plus the framing rules of §3.1.
type accumulator struct {
	t        *testing.T
	items    []gjson.Result // as added
	done     []string       // raw item JSON from output_item.done, by index
	parts    map[int]int    // content parts added per output index
	summary  map[int]int    // summary parts added per output index
	ids      map[string]bool
	callIDs  map[string]bool
	terminal gjson.Result
}

// checkAccumulator fails t for any rule the events break; finished
// reports whether the stream ended (else it failed mid-way).
func checkAccumulator(t *testing.T, events [][]byte, finished bool) {
	t.Helper()
	a := &accumulator{t: t, parts: map[int]int{}, summary: map[int]int{}, ids: map[string]bool{}, callIDs: map[string]bool{}}
	for i, e := range events {
		if !strings.HasPrefix(string(e), `{"type":"`) {
			t.Errorf("event %d does not start with type: %s", i, e)
		}
		ev := gjson.ParseBytes(e)
		if keys := ev.Get("@keys").Array(); len(keys) < 2 || keys[1].Str != "sequence_number" {
			t.Errorf("event %d: sequence_number is not second: %s", i, e)
		}
		if n := ev.Get("sequence_number").Int(); n != int64(i) {
			t.Errorf("event %d has sequence_number %d", i, n)
		}
		typ := ev.Get("type").Str
		if i == 0 && typ != "response.created" {
			t.Errorf("first event is %s", typ)
		}
		if !slices.Contains(knownEvents, typ) {
			t.Errorf("event %d: unknown type %s", i, typ)
		}
		if a.terminal.Exists() {
			t.Errorf("event %d (%s) after the terminal event", i, typ)
		}
		a.event(i, typ, ev)
	}
	if finished {
		a.checkFinal()
	}
}

func (a *accumulator) event(i int, typ string, ev gjson.Result) {
	t := a.t
	k := int(ev.Get("output_index").Int())
	switch typ {
	case "response.output_item.added":
		a.added(i, k, ev.Get("item"))
		return
	case "response.output_item.done":
		a.itemDone(i, k, ev.Get("item"))
		return
	case "response.completed", "response.incomplete":
		a.terminal = ev.Get("response")
		return
	case "response.created", "response.in_progress":
		return
	}
	if k >= len(a.items) {
		t.Errorf("event %d (%s): output_index %d of no item", i, typ, k)
		return
	}
	item := a.items[k]
	if id := ev.Get("item_id").Str; id != item.Get("id").Str {
		t.Errorf("event %d (%s): item_id %s, item %d is %s", i, typ, id, k, item.Get("id").Str)
	}
	if want := deltaItemType[typ]; want != item.Get("type").Str {
		t.Errorf("event %d: %s on a %s item", i, typ, item.Get("type").Str)
	}
	switch typ {
	case "response.content_part.added":
		if n := int(ev.Get("content_index").Int()); n != a.parts[k] {
			t.Errorf("event %d: content_index %d, want %d", i, n, a.parts[k])
		}
		a.parts[k]++
	case "response.reasoning_summary_part.added":
		if n := int(ev.Get("summary_index").Int()); n != a.summary[k] {
			t.Errorf("event %d: summary_index %d, want %d", i, n, a.summary[k])
		}
		a.summary[k]++
	}
}

func (a *accumulator) added(i, k int, item gjson.Result) {
	t := a.t
	if k != len(a.items) {
		t.Errorf("event %d: output_item.added at %d with %d items", i, k, len(a.items))
	}
	id, typ := item.Get("id").Str, item.Get("type").Str
	if id == "" || a.ids[id] {
		t.Errorf("event %d: item id %q empty or repeated", i, id)
	}
	a.ids[id] = true
	if typ == "function_call" {
		c := item.Get("call_id").Str
		if c == "" || a.callIDs[c] {
			t.Errorf("event %d: call_id %q empty or repeated", i, c)
		}
		a.callIDs[c] = true
	}
	a.items = append(a.items, item)
	a.done = append(a.done, "")
}

func (a *accumulator) itemDone(i, k int, item gjson.Result) {
	if k >= len(a.items) {
		a.t.Errorf("event %d: output_item.done of no item %d", i, k)
		return
	}
	was := a.items[k]
	for _, f := range []string{"id", "type", "call_id"} {
		if item.Get(f).Str != was.Get(f).Str {
			a.t.Errorf("event %d: output_item.done changes %s from %q to %q", i, f, was.Get(f).Str, item.Get(f).Str)
		}
	}
	a.done[k] = item.Raw
}

// checkFinal checks the terminal response repeats the items as done.
func (a *accumulator) checkFinal() {
	if !a.terminal.Exists() {
		a.t.Error("no terminal event")
		return
	}
	var out []string
	for _, it := range a.terminal.Get("output").Array() {
		out = append(out, it.Raw)
	}
	if diff := cmp.Diff(a.done, out); diff != "" {
		a.t.Errorf("final output differs from the items done (-done +final):\n%s", diff)
	}
}
