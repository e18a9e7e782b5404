package responses

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// The open item of a stream: opening, appending to and closing the
// reasoning, message and function_call items.

// index is the output index of the open item.
func (s *stream) index() int { return len(s.items) - 1 }

// open adds item as the next output item.
func (s *stream) open(item any) {
	s.items = append(s.items, item)
	i := s.index()
	s.emit(func(seq int) any { return itemEvent{"response.output_item.added", seq, i, item} })
	s.live = item
}

// thought appends reasoning text to the open reasoning item's summary.
func (s *stream) thought(v string) {
	if s.inCalls {
		s.late.thought.WriteString(v)
		return
	}
	rs, ok := s.live.(*reasoningItem)
	if !ok {
		s.close("completed")
		rs = newReasoning(s.t.newID("rs_"))
		s.open(rs)
	}
	i, k := s.index(), len(rs.Summary)
	if !s.partOpen {
		s.partOpen = true
		s.emit(func(seq int) any {
			return summaryPartEvent{"response.reasoning_summary_part.added", seq, rs.ID, i, k, summaryText{"summary_text", ""}}
		})
	}
	s.buf.WriteString(v)
	s.emit(func(seq int) any {
		return summaryDeltaEvent{"response.reasoning_summary_text.delta", seq, rs.ID, i, k, v}
	})
}

// block keeps a thinking block (its signature) for the open reasoning
// item's encrypted_content.
func (s *stream) block(b json.RawMessage) {
	if s.inCalls {
		s.late.blocks = append(s.late.blocks, b)
		return
	}
	if _, ok := s.live.(*reasoningItem); !ok {
		s.close("completed")
		s.open(newReasoning(s.t.newID("rs_")))
	}
	s.blocks = append(s.blocks, b)
}

// openMessage opens a message item.
func (s *stream) openMessage() *messageItem {
	s.close("completed")
	m := newMessage(s.t.newID("msg_"))
	s.open(m)
	return m
}

// text appends to the message's output_text part.
func (s *stream) text(v string) {
	if s.inCalls {
		s.late.text.WriteString(v)
		return
	}
	m := s.part("output_text")
	i, k := s.index(), len(m.Content)
	s.buf.WriteString(v)
	s.emit(func(seq int) any {
		return textDeltaEvent{"response.output_text.delta", seq, m.ID, i, k, v, []any{}}
	})
}

// refusal appends to the message's refusal part.
func (s *stream) refusal(v string) {
	if s.inCalls {
		s.late.refusal.WriteString(v)
		return
	}
	m := s.part("refusal")
	i, k := s.index(), len(m.Content)
	s.buf.WriteString(v)
	s.emit(func(seq int) any {
		return refusalDeltaEvent{"response.refusal.delta", seq, m.ID, i, k, v}
	})
}

// part returns the open message with an open part of type typ, opening
// either as needed. The open part's index is len(Content).
func (s *stream) part(typ string) *messageItem {
	m, ok := s.live.(*messageItem)
	if !ok {
		m = s.openMessage()
	}
	if s.partOpen && s.partType != typ {
		s.closePart(m)
	}
	if !s.partOpen {
		s.partOpen, s.partType = true, typ
		var p any = newText("")
		if typ == "refusal" {
			p = &refusalPart{"refusal", ""}
		}
		i, k := s.index(), len(m.Content)
		s.emit(func(seq int) any { return partEvent{"response.content_part.added", seq, m.ID, i, k, p} })
	}
	return m
}

// closePart ends the message's open part.
func (s *stream) closePart(m *messageItem) {
	i, k, text := s.index(), len(m.Content), s.buf.String()
	s.buf.Reset()
	s.partOpen = false
	var p any
	if s.partType == "refusal" {
		p = &refusalPart{"refusal", text}
		s.emit(func(seq int) any { return refusalDoneEvent{"response.refusal.done", seq, m.ID, i, k, text} })
	} else {
		p = newText(text)
		s.emit(func(seq int) any { return textDoneEvent{"response.output_text.done", seq, m.ID, i, k, text, []any{}} })
	}
	s.emit(func(seq int) any { return partEvent{"response.content_part.done", seq, m.ID, i, k, p} })
	m.Content = append(m.Content, p)
}

// toolCall takes one tool call fragment: the open call's goes out at
// once, another's is kept until the end unless it can follow the open
// one at once.
func (s *stream) toolCall(tc gjson.Result) {
	k := int(tc.Get("index").Int())
	id, name, args := tc.Get("id").Str, tc.Get("function.name").Str, tc.Get("function.arguments").Str
	_, live := s.live.(*callItem)
	switch {
	case live && s.liveCall == k:
		s.argsDelta(args)
		return
	case s.pending[k] == nil && !s.emitted[k] && (!live || gjson.Valid(s.buf.String())):
		// A new call starts while nothing else, or a call whose arguments
		// are already whole JSON, is open: sequential calls stream live;
		// an upstream that interleaves them gets the later ones kept.
		s.inCalls = true
		s.openCall(k, id, name)
		s.argsDelta(args)
		return
	}
	b := s.pending[k]
	if b == nil {
		b = &callBuf{}
		s.pending[k] = b
	}
	if id != "" {
		b.id = id
	}
	if name != "" {
		b.name = name
	}
	b.args.WriteString(args)
}

// openCall opens the function_call item of chat tool call k.
func (s *stream) openCall(k int, id, name string) {
	s.close("completed")
	if id == "" {
		id = s.t.newID("call_")
	}
	if s.emitted == nil {
		s.emitted = map[int]bool{}
	}
	s.emitted[k], s.liveCall = true, k
	delete(s.pending, k)
	s.open(&callItem{ID: s.t.newID("fc_"), Type: "function_call", Status: "in_progress", CallID: id, Name: name})
}

// argsDelta appends to the open call's arguments.
func (s *stream) argsDelta(v string) {
	if v == "" {
		return
	}
	c, i := s.live.(*callItem), s.index()
	s.buf.WriteString(v)
	s.emit(func(seq int) any { return argsDeltaEvent{"response.function_call_arguments.delta", seq, c.ID, i, v} })
}

// close ends the open item, if any, with status (message and call).
func (s *stream) close(status string) {
	i := s.index()
	switch it := s.live.(type) {
	case *reasoningItem:
		if s.partOpen {
			k, text := len(it.Summary), s.buf.String()
			part := summaryText{"summary_text", text}
			s.emit(func(seq int) any {
				return summaryDoneEvent{"response.reasoning_summary_text.done", seq, it.ID, i, k, text}
			})
			s.emit(func(seq int) any {
				return summaryPartEvent{"response.reasoning_summary_part.done", seq, it.ID, i, k, part}
			})
			it.Summary = append(it.Summary, part)
		}
		it.EncryptedContent = seal(s.blocks)
		s.blocks = nil
	case *messageItem:
		if s.partOpen {
			s.closePart(it)
		}
		it.Status = status
	case *callItem:
		it.Arguments, it.Status = s.buf.String(), status
		s.emit(func(seq int) any {
			return argsDoneEvent{"response.function_call_arguments.done", seq, it.ID, i, it.Name, it.Arguments}
		})
	default:
		return
	}
	item := s.live
	s.emit(func(seq int) any { return itemEvent{"response.output_item.done", seq, i, item} })
	s.live, s.partOpen = nil, false
	s.buf.Reset()
}
