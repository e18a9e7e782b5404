package fakeanthropic

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/switchyard-gw/switchyard/internal/jsonschema"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// answer is what the fake says to a valid request.
type answer struct {
	text    []string // the text block as streamed: words with their leading space
	calls   []callOut
	stop    string // stop_reason
	stopSeq string // the stop sequence hit, for stop_reason stop_sequence
	output  int    // output tokens, thinking included
	think   *thought
}

type callOut struct{ id, name, input string }

// answerOf is the answer to q: the reply, after thinking when q asks for
// it.
func (s *Server) answerOf(q *request) *answer {
	a := s.reply(q)
	if q.thinking.on() {
		a.think = s.thoughtOf(q, a)
		a.output += a.think.tokens
	}
	return a
}

// reply is the answer's text or tool calls.
func (s *Server) reply(q *request) *answer {
	if calls := q.pickCalls(); len(calls) > 0 {
		a := &answer{stop: "tool_use"}
		if q.choice.typ == "auto" { // Claude explains itself before an unforced call
			a.text = fakeupstream.Split("Let me use " + calls[0].name + ".")
		}
		a.output = len(a.text)
		for _, t := range calls {
			input := sampleArgs(t.schema)
			a.calls = append(a.calls, callOut{id: s.NewID("toolu_fake"), name: t.name, input: input})
			a.output += 5 + len(input)/4
		}
		return a
	}
	a := &answer{stop: "end_turn"}
	text := fakeupstream.Say(q.lastUser, s.opt.Words)
	if q.format.Exists() {
		b, _ := json.Marshal(jsonschema.Example(q.format)) // values decoded from JSON always marshal
		text = string(b)
	}
	for _, seq := range q.stop {
		if i := strings.Index(text, seq); i >= 0 {
			text, a.stop, a.stopSeq = text[:i], "stop_sequence", seq
		}
	}
	a.text = fakeupstream.Split(text)
	if len(a.text) > q.maxTokens {
		a.text, a.stop, a.stopSeq = a.text[:q.maxTokens], "max_tokens", ""
	}
	a.output = len(a.text)
	return a
}

// argPieces splits a tool input into fragments of about 8 bytes, never
// inside a UTF-8 sequence, the way input_json_delta streams it.
func argPieces(args string) []string {
	var out []string
	for len(args) > 0 {
		end := min(8, len(args))
		for end < len(args) && !utf8.RuneStart(args[end]) {
			end++
		}
		out = append(out, args[:end])
		args = args[end:]
	}
	return out
}
