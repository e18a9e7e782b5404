// Package auth turns an Authorization header into a Principal: it parses
// the bearer key, hashes it and looks it up through a revocation-aware
// in-memory cache. It never writes to the database on the request path.
package auth

import (
	"errors"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/apikey"
)

// Reasons a request is not authenticated. Each maps to a 401.
var (
	ErrMissing   = errors.New("no api key provided")
	ErrScheme    = errors.New("authorization scheme is not bearer")
	ErrMalformed = errors.New("malformed api key")
	ErrUnknown   = errors.New("unknown api key")
	ErrRevoked   = errors.New("api key revoked")
	ErrDisabled  = errors.New("account disabled")
)

// ParseHeader returns the hash of the key in an Authorization header value
// of the form "Bearer <key>". The scheme is case-insensitive (RFC 9110);
// the key is not, and must be exactly one well-formed key.
func ParseHeader(h string) (apikey.Hash, error) {
	if h == "" || strings.EqualFold(h, "Bearer") {
		return apikey.Hash{}, ErrMissing
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return apikey.Hash{}, ErrScheme
	}
	hash, err := apikey.Parse(token)
	if err != nil {
		return apikey.Hash{}, ErrMalformed
	}
	return hash, nil
}
