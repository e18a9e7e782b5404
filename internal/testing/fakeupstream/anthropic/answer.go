package fakeanthropic

import (
	"strings"
	"unicode/utf8"
)

// answer is what the fake says to a valid request.
type answer struct {
	text    []string // the text block as streamed: words with their leading space
	calls   []callOut
	stop    string // stop_reason
	stopSeq string // the stop sequence hit, for stop_reason stop_sequence
	output  int    // output tokens
}

type callOut struct{ id, name, input string }

func (s *Server) answerOf(q *request) *answer {
	if calls := q.pickCalls(); len(calls) > 0 {
		a := &answer{stop: "tool_use"}
		if q.choice.typ == "auto" { // Claude explains itself before an unforced call
			a.text = split("Let me use " + calls[0].name + ".")
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
	text := say(q.lastUser, s.opt.Words)
	for _, seq := range q.stop {
		if i := strings.Index(text, seq); i >= 0 {
			text, a.stop, a.stopSeq = text[:i], "stop_sequence", seq
		}
	}
	a.text = split(text)
	if len(a.text) > q.maxTokens {
		a.text, a.stop, a.stopSeq = a.text[:q.maxTokens], "max_tokens", ""
	}
	a.output = len(a.text)
	return a
}

// filler pads answers once the echoed words run out.
var filler = [...]string{"and", "that", "is", "all", "I", "have", "to", "say", "about", "it", "for", "now"}

// say returns the deterministic answer to source, n words long:
// "You said:", the first words of source, then filler.
func say(source string, n int) string {
	words := make([]string, 0, n+2)
	words = append(words, "You", "said:")
	for w := range strings.FieldsSeq(source) {
		if len(words) >= n {
			break
		}
		words = append(words, w)
	}
	for i := 0; len(words) < n; i++ {
		words = append(words, filler[i%len(filler)])
	}
	return strings.Join(words[:n], " ")
}

// split cuts text before each run of spaces, so that each piece is a word
// with its leading space and the pieces join back to text.
func split(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
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
