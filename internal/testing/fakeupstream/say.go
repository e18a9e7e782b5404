package fakeupstream

import "strings"

// filler pads answers once the echoed words run out.
var filler = [...]string{"and", "that", "is", "all", "I", "have", "to", "say", "about", "it", "for", "now"}

// Say returns the deterministic answer to source, n words long: "You
// said:", the first words of source, then filler.
func Say(source string, n int) string {
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

// Split cuts text before each run of spaces, so that each piece is a word
// with its leading space (a streamed token) and the pieces join back to
// text.
func Split(text string) []string {
	out := make([]string, 0, len(text)/5+1)
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

// Cut ends text at the first stop sequence and splits it into pieces,
// keeping at most limit of them (limit 0: no limit); it reports whether
// the limit cut the text short.
func Cut(text string, limit int, stops []string) (pieces []string, cutShort bool) {
	for _, s := range stops {
		if i := strings.Index(text, s); s != "" && i >= 0 {
			text = text[:i]
		}
	}
	pieces = Split(text)
	if limit > 0 && len(pieces) > limit {
		return pieces[:limit], true
	}
	return pieces, false
}
