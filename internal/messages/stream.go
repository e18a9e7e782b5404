package messages

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Stream turns a stream of chat completion chunks into Messages events:
// message_start (with an estimate of the input tokens, as chat sends usage
// only at the end), the content blocks one after the other, then
// message_delta with the stop reason and the real usage, and
// message_stop. A failure of st is returned as is.
func (t *Translator) Stream(st provider.Stream) provider.Stream {
	return &stream{t: t, st: st, tools: map[int64]*toolCall{}}
}

// blockKind is the kind of the content block that is open.
type blockKind int

const (
	noBlock blockKind = iota
	textKind
	thinkingKind
	toolKind
)

// toolCall is one chat tool call being turned into a tool_use block.
type toolCall struct {
	id, name string
	args     strings.Builder // fragments held while another block is open
	closed   bool
}

// stream is a chat stream read as Messages events. Blocks never
// interleave: the first tool call streams its arguments as they come;
// a tool call that starts while another is open is held and sent whole
// when the open one ends.
type stream struct {
	t  *Translator
	st provider.Stream
	// queue holds the events of the last chunk; next is the first unsent.
	queue   [][]byte
	next    int
	started bool
	done    bool
	index   int // the open block's index; the next block's is index+1
	open    blockKind
	tools   map[int64]*toolCall
	cur     *toolCall   // the open tool_use block's call
	held    []*toolCall // calls started while cur was open
	stop    string
}

func (s *stream) Next() ([]byte, error) {
	for s.next >= len(s.queue) {
		if s.done {
			return nil, io.EOF
		}
		s.queue, s.next = s.queue[:0], 0
		chunk, err := s.st.Next()
		if errors.Is(err, io.EOF) {
			s.finish()
			continue
		}
		if err != nil {
			return nil, err
		}
		s.chunk(chunk)
	}
	ev := s.queue[s.next]
	s.next++
	return ev, nil
}

func (s *stream) Usage() provider.Usage { return s.st.Usage() }

func (s *stream) Close() error { return s.st.Close() }

func (s *stream) emit(v any) {
	b, _ := json.Marshal(v) // only the event types above, which always encode
	s.queue = append(s.queue, b)
}

// chunk queues the events of one chat chunk.
func (s *stream) chunk(b []byte) {
	root := gjson.ParseBytes(b)
	if !s.started {
		s.begin(root.Get("id").Str, root.Get("model").Str)
	}
	choice := root.Get("choices.0")
	d := choice.Get("delta")
	if rc := d.Get("reasoning_content").Str; rc != "" {
		s.openBlock(thinkingKind, thinkingBlock{Type: "thinking"})
		s.delta(thinkingDelta{Type: "thinking_delta", Thinking: rc})
	}
	for _, tb := range d.Get("thinking_blocks").Array() {
		s.thinkingEnd(tb)
	}
	for _, f := range []string{"content", "refusal"} {
		if text := d.Get(f).Str; text != "" {
			s.openBlock(textKind, textBlockOut{Type: "text"})
			s.delta(textDelta{Type: "text_delta", Text: text})
		}
	}
	for i, tc := range d.Get("tool_calls").Array() {
		s.toolFragment(int64(i), tc)
	}
	if d.Get("refusal").Str != "" {
		s.stop = "refusal"
	}
	if fr := choice.Get("finish_reason").Str; fr != "" {
		if s.stop != "refusal" {
			s.stop = stopReason(fr, false)
		}
		s.closeBlock()
	}
}

// begin queues message_start.
func (s *stream) begin(id, model string) {
	s.started = true
	if model == "" {
		model = s.t.req.Model
	}
	s.emit(messageStart{Type: "message_start", Message: message{ID: messageID(id), Type: "message",
		Role: "assistant", Model: model, Content: []any{}, Usage: usage{InputTokens: s.t.req.InputTokens()}}})
	s.index = -1
}

// openBlock opens a block of kind k unless one is open.
func (s *stream) openBlock(k blockKind, empty any) {
	if s.open != k {
		s.start(k, empty)
	}
}

// start closes the open block and opens a block of kind k.
func (s *stream) start(k blockKind, empty any) {
	s.closeBlock()
	s.index++
	s.open = k
	s.emit(blockStart{Type: "content_block_start", Index: s.index, ContentBlock: empty})
	if s.index == 0 {
		// Anthropic sends one ping after the first block starts; clients
		// that count on seeing one (as a keep-alive) get it here too.
		s.queue = append(s.queue, []byte(`{"type":"ping"}`))
	}
}

func (s *stream) delta(d any) {
	s.emit(blockDelta{Type: "content_block_delta", Index: s.index, Delta: d})
}

// closeBlock closes the open block, then sends the held tool calls.
func (s *stream) closeBlock() {
	if s.open == noBlock {
		return
	}
	s.emit(blockStop{Type: "content_block_stop", Index: s.index})
	s.open = noBlock
	if s.cur != nil {
		s.cur.closed, s.cur = true, nil
		held := s.held
		s.held = nil
		for _, c := range held {
			s.openTool(c)
			if c.args.Len() > 0 {
				s.delta(inputJSONDelta{Type: "input_json_delta", PartialJSON: c.args.String()})
			}
			s.emit(blockStop{Type: "content_block_stop", Index: s.index})
			s.open, s.cur, c.closed = noBlock, nil, true
		}
	}
}

// thinkingEnd handles a thinking_blocks delta: the end of a thinking
// block (its signature; its text came as reasoning_content) or a whole
// redacted block.
func (s *stream) thinkingEnd(tb gjson.Result) {
	if tb.Get("type").Str == "redacted_thinking" {
		s.start(thinkingKind, redactedBlock{Type: "redacted_thinking", Data: tb.Get("data").Str})
		s.closeBlock()
		return
	}
	s.openBlock(thinkingKind, thinkingBlock{Type: "thinking"})
	if sig := tb.Get("signature").Str; sig != "" {
		s.delta(signatureDelta{Type: "signature_delta", Signature: sig})
	}
	s.closeBlock()
}

// toolFragment handles one tool_calls entry of a delta; pos is its place
// in the delta, the index when the upstream sends none.
func (s *stream) toolFragment(pos int64, tc gjson.Result) {
	idx := pos
	if i := tc.Get("index"); i.Exists() {
		idx = i.Int()
	}
	c := s.tools[idx]
	if c == nil {
		c = &toolCall{id: tc.Get("id").Str, name: tc.Get("function.name").Str}
		s.tools[idx] = c
		if s.cur != nil {
			s.held = append(s.held, c)
		} else {
			s.openTool(c)
		}
	}
	switch args := tc.Get("function.arguments").Str; {
	case args == "" || c.closed:
		// Nothing, or a fragment of a call whose block has ended (an
		// upstream that interleaves calls after other content): it
		// cannot be sent any more.
	case c == s.cur:
		s.delta(inputJSONDelta{Type: "input_json_delta", PartialJSON: args})
	default:
		c.args.WriteString(args)
	}
}

// openTool opens c's tool_use block.
func (s *stream) openTool(c *toolCall) {
	id := outID(c.id)
	if c.id == "" {
		id = "toolu_" + rand.Text()
	}
	s.start(toolKind, toolUseBlock{Type: "tool_use", ID: id, Name: c.name, Input: emptyInput})
	s.cur = c
}

// finish queues the end of the message, at the end of the chat stream.
func (s *stream) finish() {
	if !s.started {
		s.begin("", "")
	}
	s.closeBlock()
	stop := s.stop
	if stop == "" {
		stop = "end_turn"
	}
	s.emit(messageDelta{Type: "message_delta", Delta: stopInfo{StopReason: stop}, Usage: usageOf(s.st.Usage())})
	s.emit(messageStop{Type: "message_stop"})
	s.done = true
}
