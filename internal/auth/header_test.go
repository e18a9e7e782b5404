package auth

import (
	"errors"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/apikey"
)

const goodKey = "sk-switchyard-AbCdEfGhIjKlMnOpQrStUvWxYz012345"

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name, header string
		want         error
	}{
		{"bearer", "Bearer " + goodKey, nil},
		{"lower-case scheme", "bearer " + goodKey, nil},
		{"short prefix", "Bearer sg-AbCdEfGhIjKlMnOpQrStUvWxYz012345", nil},
		{"missing", "", ErrMissing},
		{"scheme only", "Bearer", ErrMissing},
		{"basic", "Basic dXNlcjpwYXNz", ErrScheme},
		{"token scheme", "Token " + goodKey, ErrScheme},
		{"key without scheme", goodKey, ErrScheme},
		{"two spaces", "Bearer  " + goodKey, ErrMalformed},
		{"tab", "Bearer\t" + goodKey, ErrScheme},
		{"trailing garbage", "Bearer " + goodKey + " x", ErrMalformed},
		{"wrong prefix", "Bearer sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345", ErrMalformed},
		{"short", "Bearer " + goodKey[:len(goodKey)-1], ErrMalformed},
		{"long", "Bearer " + goodKey + "x", ErrMalformed},
		{"bad character", "Bearer " + goodKey[:len(goodKey)-1] + "!", ErrMalformed},
		{"case changed prefix", "Bearer " + strings.ToUpper(goodKey[:3]) + goodKey[3:], ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHeader(tt.header)
			if !errors.Is(err, tt.want) {
				t.Errorf("ParseHeader(%q) = %v, want %v", tt.header, err, tt.want)
			}
		})
	}
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"", "Bearer " + goodKey, "bearer sg-" + goodKey[14:], "Basic x", "Bearer  x", "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		hash, err := ParseHeader(h)
		if err != nil {
			if hash != (apikey.Hash{}) {
				t.Errorf("error %v with a non-zero hash", err)
			}
			return
		}
		// Whatever was accepted is a bearer header with a well-formed key.
		scheme, key, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "bearer") {
			t.Errorf("accepted scheme %q", scheme)
		}
		again, err := apikey.Parse(key)
		if err != nil || again != hash {
			t.Errorf("accepted %q whose key does not parse alone", h)
		}
	})
}
