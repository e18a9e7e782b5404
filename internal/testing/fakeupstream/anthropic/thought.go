package fakeanthropic

import (
	"strings"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// thought is the thinking before an answer: its text as streamed, its
// signature, and a redacted block before it when asked for.
type thought struct {
	pieces    []string // the text as thinking_delta pieces; none when display is omitted
	signature string
	redacted  string // data of a redacted_thinking block; "" for none
	tokens    int    // thinking tokens, billed as output
}

// thoughtOf thinks about q before answer a: a few words on the last user
// text and what a does, signed so the fake knows the block when a client
// sends it back.
func (s *Server) thoughtOf(q *request, a *answer) *thought {
	words := strings.Fields(q.lastUser)
	text := "The user wrote: " + strings.TrimRight(strings.Join(words[:min(len(words), 8)], " "), ".!?") + "."
	if len(words) == 0 {
		text = "The tool results are in."
	}
	if len(a.calls) > 0 {
		text += " I should call " + a.calls[0].name + " first."
	} else {
		text += " I can answer now."
	}
	t := &thought{tokens: countWords(text)}
	if findTrigger(q.lastUser) == "redacted-thinking" {
		t.redacted = RedactedData(s.NewID("redacted"))
		t.tokens += 10
	}
	if q.thinking.omitted {
		text = ""
	}
	t.pieces, t.signature = fakeupstream.Split(text), Signature(text)
	return t
}

// text is the thinking as one string.
func (t *thought) text() string { return strings.Join(t.pieces, "") }
