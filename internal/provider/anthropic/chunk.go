package anthropic

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// The chunks are rendered by hand, in OpenAI's field order: one per event
// on the hot path, so no reflection.

// roleText is the first delta of an answer that starts with text.
const roleText = `{"role":"assistant","content":"","refusal":null}`

// role sends the role chunk of a text answer, once.
func (t *translator) role() {
	if !t.started {
		t.started = true
		t.emit([]byte(roleText), "")
	}
}

// text sends a content delta (after the role chunk).
func (t *translator) text(s string) {
	t.role()
	if s == "" {
		return
	}
	t.sent.Add(s)
	d := append([]byte(`{"content":`), gjson.AppendJSONString(nil, s)...)
	t.emit(append(d, '}'), "")
}

// toolHead sends the first fragment of tool call k: its id, type, name
// and empty arguments; in the role chunk when the answer starts with it.
func (t *translator) toolHead(k int, id, name string) {
	t.sent.Add(name)
	var call []byte
	if t.legacy {
		call = append([]byte(`"function_call":{"name":`), gjson.AppendJSONString(nil, name)...)
		call = append(call, `,"arguments":""}`...)
	} else {
		call = append([]byte(`"tool_calls":[{"index":`), strconv.Itoa(k)...)
		call = append(call, `,"id":`...)
		call = gjson.AppendJSONString(call, id)
		call = append(call, `,"type":"function","function":{"name":`...)
		call = gjson.AppendJSONString(call, name)
		call = append(call, `,"arguments":""}}]`...)
	}
	var d []byte
	if !t.started {
		t.started = true
		d = append([]byte(`{"role":"assistant","content":null,`), call...)
		d = append(d, `,"refusal":null}`...)
	} else {
		d = append(append([]byte{'{'}, call...), '}')
	}
	t.emit(d, "")
}

// arguments sends a fragment of tool call k's arguments.
func (t *translator) arguments(k int, s string) {
	t.sent.Add(s)
	var d []byte
	if t.legacy {
		d = []byte(`{"function_call":{"arguments":`)
	} else {
		d = append([]byte(`{"tool_calls":[{"index":`), strconv.Itoa(k)...)
		d = append(d, `,"function":{"arguments":`...)
	}
	d = gjson.AppendJSONString(d, s)
	if t.legacy {
		d = append(d, "}}"...)
	} else {
		d = append(d, "}}]}"...)
	}
	t.emit(d, "")
}

// opening returns `{"id":…,"object":…,"created":…,"model":…,`, fixed by
// the first chunk so every chunk repeats the same id.
func (t *translator) opening() []byte {
	if t.head == nil {
		h := append([]byte(`{"id":`), gjson.AppendJSONString(nil, "chatcmpl-"+t.msgID)...)
		h = append(h, `,"object":"chat.completion.chunk","created":`...)
		h = strconv.AppendInt(h, t.created, 10)
		h = append(h, `,"model":`...)
		h = gjson.AppendJSONString(h, t.model)
		t.head = append(h, ',')
	}
	return t.head
}

// emit queues a chunk of one choice with delta and finish ("" for null).
func (t *translator) emit(delta []byte, finish string) {
	head := t.opening()
	b := make([]byte, 0, len(head)+len(delta)+100)
	b = append(b, head...)
	b = append(b, `"choices":[{"index":0,"delta":`...)
	b = append(b, delta...)
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = gjson.AppendJSONString(b, finish)
	}
	b = append(b, "}]"...)
	if t.includeUsage {
		b = append(b, `,"usage":null`...)
	}
	t.out = append(t.out, append(b, '}'))
}

// usageChunk is the final chunk, with choices [] and the usage.
func (t *translator) usageChunk() []byte {
	u := t.usage.out()
	b := append([]byte(nil), t.opening()...)
	b = append(b, `"choices":[],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptDetails.CachedTokens), 10)
	if d := u.CompletionDetails; d != nil {
		b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(d.ReasoningTokens), 10)
	}
	return append(b, "}}}"...)
}
