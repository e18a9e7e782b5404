package responses

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// Stream turns a stream of chat completion chunks into the Responses
// API's events: response.created and response.in_progress once the first
// chunk has arrived (so a failure before it can still be retried), one
// output item at a time, then response.completed or
// response.incomplete. A failure of st is returned as is.
func (t *Translator) Stream(st provider.Stream) provider.Stream {
	return &stream{t: t, st: st, pending: map[int]*callBuf{}}
}

// stream is one attempt's translated stream.
type stream struct {
	t   *Translator
	st  provider.Stream
	x   *response // the response, echo filled in at the first chunk
	seq int
	out [][]byte // events ready to return
	// started and done report whether response.created and the terminal
	// event were queued.
	started, done bool

	items []any // the output items opened so far, in order
	live  any   // the open item: *reasoningItem, *messageItem, *callItem or nil
	// buf collects the text of the open summary part, content part or
	// the open call's arguments; partOpen reports whether a summary or
	// content part is open.
	buf      strings.Builder
	partOpen bool
	partType string            // "output_text" or "refusal", of an open content part
	blocks   []json.RawMessage // thinking blocks of the open reasoning item
	liveCall int               // chat index of the open call

	// Once tool calls have begun, other calls and anything else are kept
	// for after them, so that items never interleave.
	inCalls  bool
	emitted  map[int]bool
	pending  map[int]*callBuf
	late     lateOutput
	finish   string
	tier     string
	usageRaw gjson.Result
}

// callBuf is a tool call kept until the open one is done.
type callBuf struct {
	id, name string
	args     strings.Builder
}

// lateOutput is what arrived after tool calls had begun.
type lateOutput struct {
	thought, text, refusal strings.Builder
	blocks                 []json.RawMessage
}

// Next returns the next event's data JSON.
func (s *stream) Next() ([]byte, error) {
	for len(s.out) == 0 {
		if s.done {
			return nil, io.EOF
		}
		chunk, err := s.st.Next()
		if errors.Is(err, io.EOF) {
			s.start("")
			s.end()
			continue
		}
		if err != nil {
			return nil, err
		}
		s.chunk(chunk)
	}
	e := s.out[0]
	s.out = s.out[1:]
	return e, nil
}

// Usage returns the upstream's usage.
func (s *stream) Usage() provider.Usage { return s.st.Usage() }

// Close closes the upstream stream.
func (s *stream) Close() error { return s.st.Close() }

// emit queues an event built by ev from the next sequence number.
func (s *stream) emit(ev func(seq int) any) {
	b, _ := json.Marshal(ev(s.seq))
	s.seq++
	s.out = append(s.out, b)
}

// start queues response.created and response.in_progress, once.
func (s *stream) start(model string) {
	if s.started {
		return
	}
	s.started = true
	s.x = s.t.r.echo(s.t.id, s.t.createdAt, s.t.model(model))
	for _, typ := range []string{"response.created", "response.in_progress"} {
		s.emit(func(seq int) any { return lifecycleEvent{typ, seq, s.x} })
	}
}

// chunk translates one chat completion chunk.
func (s *stream) chunk(b []byte) {
	c := gjson.ParseBytes(b)
	s.start(c.Get("model").Str)
	if tier := c.Get("service_tier").Str; tier != "" {
		s.tier = tier
	}
	if u := c.Get("usage"); u.IsObject() {
		s.usageRaw = u
	}
	ch := c.Get("choices.0")
	d := ch.Get("delta")
	if v := d.Get("reasoning_content").Str; v != "" {
		s.thought(v)
	}
	if blocks := d.Get("thinking_blocks"); blocks.IsArray() {
		for _, blk := range blocks.Array() {
			s.block(json.RawMessage(blk.Raw))
		}
	}
	if v := d.Get("content").Str; v != "" {
		s.text(v)
	}
	if v := d.Get("refusal").Str; v != "" {
		s.refusal(v)
	}
	for _, tc := range d.Get("tool_calls").Array() {
		s.toolCall(tc)
	}
	if f := ch.Get("finish_reason").Str; f != "" {
		s.finish = f
	}
}

// end closes what is open, emits what was kept, and queues the terminal
// event.
func (s *stream) end() {
	s.done = true
	s.close(s.itemStatus())
	for _, k := range slices.Sorted(maps.Keys(s.pending)) {
		c := s.pending[k]
		s.openCall(k, c.id, c.name)
		s.argsDelta(c.args.String())
		s.close(s.itemStatus())
	}
	s.flushLate()
	if len(s.items) == 0 { // an empty answer is an empty message, as in Response
		s.part("output_text")
		s.close(s.itemStatus())
	}
	s.x.finish(s.finish, s.tier, s.t.now().Unix())
	s.x.Output = s.items
	s.x.Usage = usageOf(s.usageRaw, s.st.Usage())
	typ := "response.completed"
	if s.x.Status == "incomplete" {
		typ = "response.incomplete"
	}
	s.emit(func(seq int) any { return lifecycleEvent{typ, seq, s.x} })
}

// itemStatus is the status of the item open when the answer ended.
func (s *stream) itemStatus() string {
	if s.finish == "length" || s.finish == "content_filter" {
		return "incomplete"
	}
	return "completed"
}

// flushLate emits what arrived after the tool calls as whole items.
func (s *stream) flushLate() {
	l := &s.late
	if l.thought.Len() > 0 || len(l.blocks) > 0 {
		s.inCalls = false
		if l.thought.Len() > 0 {
			s.thought(l.thought.String())
		}
		for _, b := range l.blocks {
			s.block(b)
		}
		s.close(s.itemStatus())
	}
	if l.text.Len() > 0 || l.refusal.Len() > 0 {
		s.inCalls = false
		if l.text.Len() > 0 {
			s.text(l.text.String())
		}
		if l.refusal.Len() > 0 {
			s.refusal(l.refusal.String())
		}
		s.close(s.itemStatus())
	}
}
