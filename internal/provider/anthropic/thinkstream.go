package anthropic

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Thinking in streams: thinking_delta text goes out as
// delta.reasoning_content as it comes; when a thinking block ends, one
// delta carries the whole block with its signature in thinking_blocks, for
// the client to send back; a redacted_thinking block goes out in
// thinking_blocks when it starts.

// thinkingState is a thinking block being streamed.
type thinkingState struct {
	text      strings.Builder
	signature strings.Builder
}

// roleReasoning is the first delta of an answer that starts by thinking:
// the content is not known yet.
const roleReasoning = `{"role":"assistant","content":null,"reasoning_content":"","refusal":null}`

// reasoningRole sends the role chunk of an answer that starts by
// thinking, once.
func (t *translator) reasoningRole() {
	if !t.started {
		t.started = true
		t.emit([]byte(roleReasoning), "")
	}
}

// reasoning sends a piece of block b's thinking; the first piece of a
// block after earlier thinking is set apart by reasoningSeparator, as in
// a whole answer's reasoning_content.
func (t *translator) reasoning(b *thinkingState, s string) {
	if s == "" {
		return
	}
	t.sent.Add(s)
	out := s
	if b.text.Len() == 0 && t.reasoned {
		out = reasoningSeparator + s
	}
	b.text.WriteString(s)
	t.reasoned = true
	d := append([]byte(`{"reasoning_content":`), gjson.AppendJSONString(nil, out)...)
	t.emit(append(d, '}'), "")
}

// blockStop sends a thinking block whole once it ends, when it was
// signed: the signature is what lets the client send it back.
func (t *translator) blockStop(i int64) {
	b, ok := t.blocks[i]
	if !ok || b.kind != blockThinking || b.think.signature.Len() == 0 {
		return
	}
	d := append([]byte(`{"thinking_blocks":[{"type":"thinking","thinking":`), gjson.AppendJSONString(nil, b.think.text.String())...)
	d = append(d, `,"signature":`...)
	d = gjson.AppendJSONString(d, b.think.signature.String())
	t.emit(append(d, "}]}"...), "")
}

// redacted sends a redacted_thinking block.
func (t *translator) redacted(data string) {
	t.reasoningRole()
	d := append([]byte(`{"thinking_blocks":[{"type":"redacted_thinking","data":`), gjson.AppendJSONString(nil, data)...)
	t.emit(append(d, "}]}"...), "")
}
