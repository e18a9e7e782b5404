package fakeanthropic

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// signingKey keys the signatures of the fake's thinking blocks, so that
// it can tell its own blocks, unmodified, from others.
const signingKey = "fakeanthropic thinking signatures"

// macSize is how many bytes of the HMAC a redacted block's data carries.
const macSize = 16

func mac(kind string, b []byte) []byte {
	h := hmac.New(sha256.New, []byte(signingKey))
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(b)
	return h.Sum(nil)
}

// Signature is the signature the fake gives a thinking block with this
// text ("" when display is omitted); it accepts the block back only with
// the same text.
func Signature(thinking string) string {
	return base64.StdEncoding.EncodeToString(mac("thinking", []byte(thinking)))
}

// RedactedData is the data of a redacted_thinking block the fake makes
// from seed; it accepts back only data made this way.
func RedactedData(seed string) string {
	b := append([]byte(seed), mac("redacted", []byte(seed))[:macSize]...)
	return base64.StdEncoding.EncodeToString(b)
}

// validSignature reports whether a thinking block is one the fake gave.
func validSignature(thinking, signature string) bool {
	return hmac.Equal([]byte(signature), []byte(Signature(thinking)))
}

// validRedacted reports whether a redacted_thinking block's data is one
// the fake made.
func validRedacted(data string) bool {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) < macSize {
		return false
	}
	seed, sum := b[:len(b)-macSize], b[len(b)-macSize:]
	return hmac.Equal(sum, mac("redacted", seed)[:macSize])
}
