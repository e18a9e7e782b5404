// Package password hashes and checks account passwords with argon2id.
package password

import (
	"fmt"

	"github.com/alexedwards/argon2id"
)

// MinLength is the shortest accepted password, in bytes.
const MinLength = 8

// ErrTooShort reports a password shorter than MinLength.
var ErrTooShort = fmt.Errorf("password must be at least %d characters", MinLength)

// params are RFC 9106's second recommended option (64 MiB, 3 passes).
var params = &argon2id.Params{Memory: 64 * 1024, Iterations: 3, Parallelism: 2, SaltLength: 16, KeyLength: 32}

// Hash returns the PHC-encoded argon2id hash of pw.
func Hash(pw string) (string, error) {
	if len(pw) < MinLength {
		return "", ErrTooShort
	}
	return argon2id.CreateHash(pw, params)
}

// Check reports whether pw matches hash, in constant time. An empty hash
// (an account with no password) never matches.
func Check(pw, hash string) bool {
	if hash == "" {
		return false
	}
	ok, err := argon2id.ComparePasswordAndHash(pw, hash)
	return err == nil && ok
}
