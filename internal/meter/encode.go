package meter

import (
	"strconv"
	"time"

	"github.com/switchyard-gw/switchyard/internal/jsonenc"
)

// appendJSON appends r as one JSON object that encoding/json reads back
// as the Record it makes of r (field names from its tags, times in RFC
// 3339, durations and amounts as integers; strings quoted as
// jsonenc.AppendString quotes them), without reflection: it
// runs once per request on the request path. Each key is appended with
// its punctuation as one constant. The fields tagged omitempty are left
// out when zero, as encoding/json leaves them: reading one back gives
// the same zero.
func appendJSON(b []byte, r *Record) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"request_id":`...)
	b = appendString(b, r.RequestID)
	b = append(b, `,"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","account_id":`...)
	b = appendString(b, r.AccountID)
	b = append(b, `,"key_id":`...)
	b = appendString(b, r.KeyID)
	b = append(b, `,"endpoint":`...)
	b = appendString(b, r.Endpoint)
	b = append(b, `,"model":`...)
	b = appendString(b, r.Model)
	b = append(b, `,"provider":`...)
	b = appendString(b, r.Provider)
	b = append(b, `,"upstream_model":`...)
	b = appendString(b, r.UpstreamModel)
	if r.RequestedModel != "" {
		b = append(b, `,"requested_model":`...)
		b = appendString(b, r.RequestedModel)
	}
	if r.Deployment != "" {
		b = append(b, `,"deployment":`...)
		b = appendString(b, r.Deployment)
	}
	if r.Attempts != 0 {
		b = append(b, `,"attempts":`...)
		b = strconv.AppendInt(b, int64(r.Attempts), 10)
	}
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, r.PromptTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, r.CompletionTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, r.TotalTokens, 10)
	if r.CachedTokens != 0 {
		b = append(b, `,"cached_tokens":`...)
		b = strconv.AppendInt(b, r.CachedTokens, 10)
	}
	if r.Estimated {
		b = append(b, `,"estimated":true`...)
	}
	b = append(b, `,"input_price":`...)
	b = strconv.AppendInt(b, r.InputPrice, 10)
	b = append(b, `,"cached_price":`...)
	b = strconv.AppendInt(b, r.CachedPrice, 10)
	b = append(b, `,"output_price":`...)
	b = strconv.AppendInt(b, r.OutputPrice, 10)
	b = append(b, `,"price_version":`...)
	b = appendString(b, r.PriceVersion)
	b = append(b, `,"cost":`...)
	b = strconv.AppendInt(b, int64(r.Cost), 10)
	b = append(b, `,"latency":`...)
	b = strconv.AppendInt(b, int64(r.Latency), 10)
	if r.TTFT != 0 {
		b = append(b, `,"ttft":`...)
		b = strconv.AppendInt(b, int64(r.TTFT), 10)
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	if r.ErrorType != "" {
		b = append(b, `,"error_type":`...)
		b = appendString(b, r.ErrorType)
	}
	if r.Streamed {
		b = append(b, `,"streamed":true`...)
	}
	if r.Cancelled {
		b = append(b, `,"cancelled":true`...)
	}
	return append(b, '}', '\n')
}

// appendProgressJSON appends r as a progress line: its JSON with
// "open":true.
func appendProgressJSON(b []byte, r *Record) []byte {
	b = appendJSON(b, r)
	b = b[:len(b)-2] // "}\n"
	return append(b, `,"open":true}`+"\n"...)
}

// appendString appends s as jsonenc.AppendString does. The strings of a
// record (IDs, model and provider names) are nearly always printable
// ASCII without a quote or a backslash, which stand for themselves: those
// are checked eight bytes at a time and copied whole, and only the others
// go through jsonenc.AppendString's escaping, a byte at a time.
func appendString(b []byte, s string) []byte {
	if !plain(s) {
		return jsonenc.AppendString(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Bytes repeated in each byte of a word, for plain.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain reports whether every byte of s is printable ASCII other than
// the quote and the backslash: a JSON string's bytes as they are.
func plain(s string) bool {
	if len(s) < 8 {
		for i := range len(s) {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	// The words of s, then its last eight bytes, which may overlap the
	// last word read.
	last := s[len(s)-8:]
	for ; len(s) >= 8; s = s[8:] {
		if !plainWord(s[:8]) {
			return false
		}
	}
	return plainWord(last)
}

// plainWord is plain for eight bytes, read as one word.
func plainWord(t string) bool {
	w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	// A byte's high bit is set in the result when it is 0x80 or more (w),
	// below 0x20 (w-0x20 borrows), or the quote or the backslash (the xor
	// zeroes it, and subtracting 1 borrows). Borrows may set the bits of
	// bytes above a flagged one too, never when none is.
	return (w|(w-0x20*ones)|((w^'"'*ones)-ones)|((w^'\\'*ones)-ones))&highs == 0
}
