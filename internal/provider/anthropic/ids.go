package anthropic

import (
	"hash/fnv"
	"strconv"
)

// Anthropic accepts tool_use ids matching ^[a-zA-Z0-9_-]+$ and tool names
// matching ^[a-zA-Z0-9_-]{1,64}$. Other providers' ids (say
// "functions.get_weather:0") are rewritten, the same way every time, so
// that a tool_use and the tool_result answering it agree.

// maxIDLen bounds a tool_use id the adapter makes.
const maxIDLen = 64

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func validID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte(s[i]) {
			return false
		}
	}
	return true
}

// validName reports whether s is a tool name both APIs accept.
func validName(s string) bool { return len(s) <= 64 && validID(s) }

// sanitizeID returns s when Anthropic accepts it, else s with every other
// byte replaced by "_", cut to 40 bytes, plus "_" and a hash of the whole
// of s, so that different ids stay different.
func sanitizeID(s string) string {
	if validID(s) {
		return s
	}
	b := make([]byte, 0, 50)
	for i := 0; i < len(s) && len(b) < 40; i++ {
		c := s[i]
		if !idByte(c) {
			c = '_'
		}
		b = append(b, c)
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	b = append(b, '_')
	return string(strconv.AppendUint(b, uint64(h.Sum32()), 36))
}

// toolName makes a tool name from history acceptable: other bytes become
// "_", the length is cut to 64, and an empty name becomes "tool".
func toolName(s string) string {
	if validName(s) {
		return s
	}
	if s == "" {
		return "tool"
	}
	b := []byte(s[:min(len(s), 64)])
	for i, c := range b {
		if !idByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

// legacyID is the id given to the legacy function_call of message i,
// which has none: stable, so the same history translates the same way.
func legacyID(i int) string { return "call_fn" + strconv.Itoa(i) }
