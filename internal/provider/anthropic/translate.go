package anthropic

import (
	"errors"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/tokens"
)

// translator turns the events of one Anthropic stream into OpenAI
// chat.completion.chunk objects as they arrive (wire-formats 5.5). The
// role chunk waits for the first content block, so that an answer that
// starts with a tool call gets content null, as OpenAI sends it.
type translator struct {
	name         string // provider, for errors
	model        string // the client's model ID
	created      int64
	includeUsage bool
	legacy       bool // tool calls go out as function_call

	msgID    string // from message_start
	head     []byte // the chunks' common opening, fixed at the first chunk
	started  bool   // the role chunk went out
	reasoned bool   // reasoning text went out: the next block's text is set apart
	tools    int    // tool calls so far: the next OpenAI tool index
	blocks   map[int64]blockState
	usage    usage
	stop     string // stop_reason
	finished bool   // the finish chunk went out
	stopped  bool   // the stream is complete
	out      [][]byte
	// sent is the answer's text and thinking as sent to the client: a
	// stream cut before
	// message_delta has only message_start's output count, so its record
	// bills this instead.
	sent tokens.Text
}

type blockKind uint8

const (
	blockOther blockKind = iota // redacted thinking and others
	blockText
	blockTool
	blockThinking
)

// blockState is what an Anthropic content block index stands for.
type blockState struct {
	kind  blockKind
	tool  int            // OpenAI tool index of a tool_use block
	think *thinkingState // a thinking block's text and signature so far
}

func newTranslator(name string, r *provider.Request, created int64, legacy bool) *translator {
	return &translator{name: name, model: r.Model, created: created, includeUsage: r.IncludeUsage,
		legacy: legacy, blocks: map[int64]blockState{}}
}

// event translates one event. Unknown events and fields are ignored; an
// error event is returned as a *provider.Error.
func (t *translator) event(name string, data []byte) error {
	typ := name
	if len(data) > 0 {
		if !gjson.ValidBytes(data) {
			return provider.Unreadable(t.name, errors.New("invalid JSON in stream event "+strconv.Quote(name)))
		}
		if v := gjson.GetBytes(data, "type"); v.Type == gjson.String {
			typ = v.Str
		}
	}
	switch typ {
	case "message_start":
		msg := gjson.GetBytes(data, "message")
		t.msgID = msg.Get("id").Str
		t.usage.read(msg.Get("usage"))
	case "content_block_start":
		t.blockStart(gjson.GetBytes(data, "index").Int(), gjson.GetBytes(data, "content_block"))
	case "content_block_delta":
		t.blockDelta(gjson.GetBytes(data, "index").Int(), gjson.GetBytes(data, "delta"))
	case "content_block_stop":
		t.blockStop(gjson.GetBytes(data, "index").Int())
	case "message_delta":
		if s := gjson.GetBytes(data, "delta.stop_reason"); s.Type == gjson.String {
			t.stop = s.Str
		}
		t.usage.read(gjson.GetBytes(data, "usage"))
		t.finish()
	case "message_stop":
		t.complete()
	case "error":
		return eventError(t.name, data)
	}
	return nil // ping and events added later
}

func (t *translator) blockStart(i int64, cb gjson.Result) {
	switch cb.Get("type").Str {
	case "text":
		t.blocks[i] = blockState{kind: blockText}
		t.text(cb.Get("text").Str)
	case "tool_use":
		if t.legacy && t.tools > 0 {
			t.blocks[i] = blockState{} // function_call holds one call
			return
		}
		t.blocks[i] = blockState{kind: blockTool, tool: t.tools}
		t.toolHead(t.tools, cb.Get("id").Str, cb.Get("name").Str)
		t.tools++
	case "thinking":
		st := blockState{kind: blockThinking, think: &thinkingState{}}
		t.blocks[i] = st
		t.reasoningRole()
		t.reasoning(st.think, cb.Get("thinking").Str)
		st.think.signature.WriteString(cb.Get("signature").Str)
	case "redacted_thinking":
		t.blocks[i] = blockState{}
		t.redacted(cb.Get("data").Str)
	default:
		t.blocks[i] = blockState{}
	}
}

func (t *translator) blockDelta(i int64, d gjson.Result) {
	b, seen := t.blocks[i]
	switch d.Get("type").Str {
	case "text_delta":
		if !seen || b.kind == blockText {
			t.text(d.Get("text").Str)
		}
	case "input_json_delta":
		if s := d.Get("partial_json").Str; seen && b.kind == blockTool && s != "" {
			t.arguments(b.tool, s)
		}
	case "thinking_delta":
		if seen && b.kind == blockThinking {
			t.reasoning(b.think, d.Get("thinking").Str)
		} else {
			t.sent.Add(d.Get("thinking").Str) // billed all the same
		}
	case "signature_delta":
		if seen && b.kind == blockThinking {
			b.think.signature.WriteString(d.Get("signature").Str)
		}
	}
}

// finish sends the finish chunk, once.
func (t *translator) finish() {
	if t.finished {
		return
	}
	t.finished = true
	t.role()
	t.emit([]byte("{}"), finishReason(t.stop, t.legacy))
}

// complete ends the stream: the finish chunk if message_delta did not
// send it, then the usage chunk when the client asked for usage.
func (t *translator) complete() {
	if t.stopped {
		return
	}
	t.finish()
	t.stopped = true
	if t.includeUsage {
		t.out = append(t.out, t.usageChunk())
	}
}

// usageSoFar is the stream's usage: the upstream's once message_delta has
// given the final output count; before that (a cut stream) the larger of
// what the upstream reported and the gateway's count of what was sent,
// flagged as an estimate.
func (t *translator) usageSoFar() provider.Usage {
	u := t.usage.provider()
	if t.finished {
		return u
	}
	u.CompletionTokens = max(u.CompletionTokens, t.sent.Count(t.model))
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.Estimated = true
	return u
}

// end is called at the end of the upstream body. A stream cut before its
// stop reason is an error, never a made-up "stop".
func (t *translator) end() error {
	if !t.finished {
		return &provider.Error{Provider: t.name, Kind: provider.KindUnavailable,
			Message: "The upstream stream ended before the answer was complete.",
			Err:     errors.New("upstream stream ended before message_delta")}
	}
	t.complete()
	return nil
}
