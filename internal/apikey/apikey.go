// Package apikey issues and parses Switchyard API keys.
//
// A key is "sk-switchyard-" followed by 32 characters from [A-Za-z0-9]. The
// short form "sg-" followed by the same 32 characters names the same key.
// Only the SHA-256 hash of the 32-character secret and a display hint are
// ever stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// Prefix starts every issued key.
	Prefix = "sk-switchyard-"
	// ShortPrefix is the accepted alternative prefix of the same key.
	ShortPrefix = "sg-"
	// SecretLen is the length of the random part of a key.
	SecretLen = 32

	alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// ErrMalformed reports a string that is not a Switchyard key.
var ErrMalformed = errors.New("malformed api key")

// Hash is the SHA-256 of a key's secret part; it identifies the key.
type Hash [sha256.Size]byte

// String returns the hash in lower-case hex, the form stored in the database.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash decodes the hex form produced by Hash.String.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*len(h) {
		return h, errors.New("bad key hash length")
	}
	_, err := hex.Decode(h[:], []byte(s))
	return h, err
}

// Generate returns a new key in its full form, drawn from crypto/rand.
func Generate() string {
	// rand.Text would use base32; the key alphabet is base62, so draw bytes
	// and reject those that would bias the distribution.
	const max = 256 - 256%len(alphabet)
	var out [SecretLen]byte
	var buf [64]byte
	n := 0
	for n < SecretLen {
		rand.Read(buf[:]) // never fails (crypto/rand panics instead)
		for _, b := range buf {
			if int(b) >= max {
				continue
			}
			out[n] = alphabet[int(b)%len(alphabet)]
			n++
			if n == SecretLen {
				break
			}
		}
	}
	return Prefix + string(out[:])
}

// Secret returns the 32-character random part of key, or ErrMalformed when
// key has neither prefix, the wrong length or a character outside [A-Za-z0-9].
func Secret(key string) (string, error) {
	var secret string
	switch {
	case strings.HasPrefix(key, Prefix):
		secret = key[len(Prefix):]
	case strings.HasPrefix(key, ShortPrefix):
		secret = key[len(ShortPrefix):]
	default:
		return "", ErrMalformed
	}
	if len(secret) != SecretLen {
		return "", ErrMalformed
	}
	for i := 0; i < len(secret); i++ {
		if !isAlnum(secret[i]) {
			return "", ErrMalformed
		}
	}
	return secret, nil
}

// Parse validates key and returns its hash.
func Parse(key string) (Hash, error) {
	secret, err := Secret(key)
	if err != nil {
		return Hash{}, err
	}
	return sha256.Sum256([]byte(secret)), nil
}

// Hint returns the display hint stored beside the hash: the prefix and the
// last four characters, e.g. "sk-switchyard-…Ab12". It reveals 4 of the 32
// random characters, as other providers' dashboards do.
func Hint(key string) string {
	secret, err := Secret(key)
	if err != nil {
		return ""
	}
	return Prefix + "…" + secret[len(secret)-4:]
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// MaxNameLength bounds a key's descriptive name, in characters.
const MaxNameLength = 100

// Reasons CheckName gives, worded for the person naming the key.
var (
	ErrNameEmpty   = errors.New("give the key a name that says where it is used, such as “CI pipeline”")
	ErrNameTooLong = fmt.Errorf("use at most %d characters", MaxNameLength)
	ErrNameNotText = errors.New("use printable text: no control characters or bytes that are not UTF-8")
)

// CheckName checks a key's descriptive name, already trimmed of white
// space at its ends: required, at most MaxNameLength characters of
// printable UTF-8 text. The CLI and the dashboard share the rule.
func CheckName(name string) error {
	switch {
	case name == "":
		return ErrNameEmpty
	case !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0:
		return ErrNameNotText
	case utf8.RuneCountInString(name) > MaxNameLength:
		return ErrNameTooLong
	}
	return nil
}
