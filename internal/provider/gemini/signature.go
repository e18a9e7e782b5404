package gemini

import (
	"encoding/base64"
	"strings"
)

// Thought signatures ride in tool-call IDs (doc.go, "Thought signatures"):
//
//	call_<12 random [A-Z2-7]>                      a call without a signature
//	call_<12 random [A-Z2-7]>_ts_<base64url(sig)>  a call carrying one
//
// The signature's bytes are written unpadded URL-safe, so the ID keeps to
// [A-Za-z0-9_-], the alphabet every provider accepts for tool-call IDs.

const (
	callPrefix     = "call_"
	sigMarker      = "_ts_"
	randLen        = 12
	base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" // crypto/rand.Text's
)

// skipSignature is the value Google documents for a function call whose
// signature was lost (history from another model, an ID the client
// rewrote): it turns off the check, at some cost in answer quality.
const skipSignature = "skip_thought_signature_validator"

// callID returns a new tool-call ID carrying sig, a thoughtSignature as
// Gemini sent it (base64). A signature that is not canonical base64 cannot
// be carried without changing it, so the ID then carries none.
func callID(random, sig string) string {
	id := callPrefix + random[:randLen]
	if raw, ok := decodeSignature(sig); ok {
		id += sigMarker + base64.RawURLEncoding.EncodeToString(raw)
	}
	return id
}

// signatureOf returns the thoughtSignature carried by a tool-call ID, as
// standard base64, or "" when it carries none. Only IDs of exactly the
// shape callID makes count, so another provider's IDs are left alone.
func signatureOf(id string) string {
	rest, ok := strings.CutPrefix(id, callPrefix)
	if !ok || len(rest) <= randLen+len(sigMarker) || rest[randLen:randLen+len(sigMarker)] != sigMarker ||
		strings.Trim(rest[:randLen], base32Alphabet) != "" {
		return ""
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(rest[randLen+len(sigMarker):])
	if err != nil || len(raw) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// decodeSignature decodes a signature in any base64 flavour proto JSON
// accepts, refusing non-canonical encodings (they would not survive the
// round trip byte for byte).
func decodeSignature(sig string) ([]byte, bool) {
	if sig == "" || strings.ContainsAny(sig, "\r\n") { // newlines are skipped, not kept
		return nil, false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.Strict().DecodeString(sig); err == nil && len(raw) > 0 {
			return raw, true
		}
	}
	return nil, false
}

// needsSignature reports whether model refuses a function call turn
// without a thoughtSignature: Gemini 3 and later.
func needsSignature(model string) bool {
	v, ok := strings.CutPrefix(strings.TrimPrefix(model, "models/"), "gemini-")
	if !ok {
		return false
	}
	major := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		major = major*10 + int(c-'0')
		if major > 1000 {
			break
		}
	}
	return major >= 3
}
