// Package envelope wraps reasoning state that one API cannot carry in
// its own shape (Anthropic thinking blocks and their signatures in a
// Responses reasoning item's encrypted_content, say) into an opaque
// string the client echoes back, and unwraps it on the way in.
//
// An envelope is "swy1." followed by the unpadded base64url encoding of
// {"p":<provider type that issued the state>,"b":<its blocks, as JSON>}.
// It is not signed: what it carries is verified by the upstream that
// issued it (Anthropic checks its thinking signatures, Gemini its thought
// signatures), so a forged envelope gains a client nothing it could not
// send that upstream directly. Blocks issued by one provider type are
// only sent back to that type; others drop them.
package envelope

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Prefix starts every envelope; strings without it are not envelopes.
const Prefix = "swy1."

type wire struct {
	P string          `json:"p"`
	B json.RawMessage `json:"b"`
}

// Seal returns the envelope of blocks issued by provider (a provider
// type such as "anthropic").
func Seal(provider string, blocks json.RawMessage) string {
	b, _ := json.Marshal(wire{P: provider, B: blocks}) // invalid blocks give an envelope Open refuses
	return Prefix + base64.RawURLEncoding.EncodeToString(b)
}

// ErrNotEnvelope reports a string that is not a well-formed envelope.
var ErrNotEnvelope = errors.New("not a gateway reasoning envelope")

// Open returns the provider type and blocks sealed in s.
func Open(s string) (provider string, blocks json.RawMessage, err error) {
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return "", nil, ErrNotEnvelope
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", nil, ErrNotEnvelope
	}
	var w wire
	if err := json.Unmarshal(b, &w); err != nil || w.P == "" || len(w.B) == 0 {
		return "", nil, ErrNotEnvelope
	}
	return w.P, w.B, nil
}

// Is reports whether s looks like an envelope (has the prefix).
func Is(s string) bool { return strings.HasPrefix(s, Prefix) }
