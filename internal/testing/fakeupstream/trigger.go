package fakeupstream

import (
	"slices"
	"strings"
)

// FindTrigger returns the first of the known magic words that follows
// "fake:" in text, without the prefix, or "". A trigger is made of lower
// case letters, digits, ':' and '-' ("fake:error:503", "fake:hang").
func FindTrigger(text string, known []string) string {
	for {
		i := strings.Index(text, "fake:")
		if i < 0 {
			return ""
		}
		text = text[i+len("fake:"):]
		end := 0
		for end < len(text) && isTriggerByte(text[end]) {
			end++
		}
		if t := text[:end]; slices.Contains(known, t) {
			return t
		}
	}
}

func isTriggerByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ':' || c == '-'
}
