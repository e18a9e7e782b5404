package fakeopenai

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
)

// cut ends text at the first stop sequence (finish "stop") and splits it
// into pieces, keeping at most limit of them (finish "length"); limit 0
// means no limit.
func cut(text string, limit int, stops []string) ([]string, string) {
	pieces, cutShort := fakeupstream.Cut(text, limit, stops)
	if cutShort {
		return pieces, "length"
	}
	return pieces, "stop"
}

func joinPieces(pieces []string) string { return strings.Join(pieces, "") }

// countWords counts whitespace-separated words without allocating.
func countWords(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// contentText is the text of a message content: the string, or its text
// parts joined by spaces.
func contentText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var b strings.Builder
	for _, p := range v.Array() {
		if p.Get("type").Str != "text" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Get("text").Str)
	}
	return b.String()
}

// appendLogprobs renders chat logprobs for pieces, each with top
// alternatives: the piece itself, then "alt1", "alt2", ...
func appendLogprobs(b []byte, pieces []string, top int) []byte {
	b = append(b, `{"content":[`...)
	for i, p := range pieces {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTokenLogprob(b, p, -0.01, false)
		b = append(b, `,"top_logprobs":[`...)
		for k := range top {
			if k > 0 {
				b = append(b, ',')
			}
			tok, lp := p, -0.01
			if k > 0 {
				tok, lp = "alt"+strconv.Itoa(k), -float64(k)
			}
			b = appendTokenLogprob(b, tok, lp, true)
		}
		b = append(b, "]}"...)
	}
	return append(b, `],"refusal":null}`...)
}

// appendTokenLogprob appends {"token","logprob","bytes"}, closed if closed.
func appendTokenLogprob(b []byte, tok string, lp float64, closed bool) []byte {
	b = append(b, `{"token":`...)
	b = gjson.AppendJSONString(b, tok)
	b = append(b, `,"logprob":`...)
	b = strconv.AppendFloat(b, lp, 'g', -1, 64)
	b = append(b, `,"bytes":[`...)
	for i := 0; i < len(tok); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(tok[i]), 10)
	}
	b = append(b, ']')
	if closed {
		b = append(b, '}')
	}
	return b
}
