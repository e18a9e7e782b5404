package messages

import (
	"encoding/base64"
	"strings"
)

// Anthropic tool_use IDs must match ^[a-zA-Z0-9_-]+$, which chat
// upstreams' IDs need not (some hosts use dots, colons or spaces). An ID
// that does not fit, or that could be mistaken for a rewritten one, goes
// to the client as gwIDPrefix + base64url(ID) and comes back decoded, so
// the upstream sees its own IDs again.
const gwIDPrefix = "toolu_gw_"

// outID returns the Messages tool_use ID for a chat tool-call ID.
func outID(id string) string {
	if id != "" && validID(id) && !strings.HasPrefix(id, gwIDPrefix) {
		return id
	}
	return gwIDPrefix + base64.RawURLEncoding.EncodeToString([]byte(id))
}

// inID returns the chat tool-call ID for a Messages tool_use ID: the
// original of a rewritten ID, any other as is.
func inID(id string) string {
	rest, ok := strings.CutPrefix(id, gwIDPrefix)
	if !ok {
		return id
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil {
		return id
	}
	return string(raw)
}

// validID reports whether id keeps to Anthropic's tool_use ID alphabet.
func validID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return id != ""
}
