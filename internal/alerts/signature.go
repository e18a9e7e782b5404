package alerts

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header that carries a webhook's signature.
const SignatureHeader = "X-Switchyard-Signature"

// ErrSignature is matched by every error of Verify.
var ErrSignature = errors.New("webhook signature")

// Sign returns the X-Switchyard-Signature value for body sent at t (Unix
// seconds): "t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>".
func Sign(secret string, t int64, body []byte) string {
	return "t=" + strconv.FormatInt(t, 10) + ",v1=" + hex.EncodeToString(mac(secret, t, body))
}

func mac(secret string, t int64, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(strconv.AppendInt(nil, t, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks a received X-Switchyard-Signature header against body and
// secret, and that its timestamp is within tolerance of now (a tolerance
// of 0 skips that check). Any one of several v1 values may match, so that
// a receiver can accept a rotated secret's signatures.
func Verify(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	t, sigs, err := parseSignature(header)
	if err != nil {
		return err
	}
	if tolerance > 0 {
		age := now.Sub(time.Unix(t, 0))
		if age > tolerance || age < -tolerance {
			return fmt.Errorf("%w: timestamp %d is outside the tolerance of %s", ErrSignature, t, tolerance)
		}
	}
	want := mac(secret, t, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return fmt.Errorf("%w: no v1 signature matches", ErrSignature)
}

// parseSignature reads "t=…,v1=…[,v1=…]", ignoring unknown schemes.
func parseSignature(header string) (t int64, sigs [][]byte, err error) {
	haveT := false
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			t, err = strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, nil, fmt.Errorf("%w: bad timestamp %q", ErrSignature, v)
			}
			haveT = true
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil {
				return 0, nil, fmt.Errorf("%w: bad v1 value", ErrSignature)
			}
			sigs = append(sigs, b)
		}
	}
	if !haveT || len(sigs) == 0 {
		return 0, nil, fmt.Errorf("%w: header needs t= and v1=", ErrSignature)
	}
	return t, sigs, nil
}
