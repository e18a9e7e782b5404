package meter

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendJSON appends r as one JSON object, the same document that
// encoding/json makes of a Record (field names from its tags, times in
// RFC 3339, durations and amounts as integers) without reflection: it
// runs once per request on the request path. Each key is appended with
// its punctuation as one constant.
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
	b = append(b, `,"requested_model":`...)
	b = appendString(b, r.RequestedModel)
	b = append(b, `,"deployment":`...)
	b = appendString(b, r.Deployment)
	b = append(b, `,"attempts":`...)
	b = strconv.AppendInt(b, int64(r.Attempts), 10)
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, r.PromptTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, r.CompletionTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, r.TotalTokens, 10)
	b = append(b, `,"cached_tokens":`...)
	b = strconv.AppendInt(b, r.CachedTokens, 10)
	b = append(b, `,"estimated":`...)
	b = strconv.AppendBool(b, r.Estimated)
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
	b = append(b, `,"ttft":`...)
	b = strconv.AppendInt(b, int64(r.TTFT), 10)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, `,"error_type":`...)
	b = appendString(b, r.ErrorType)
	b = append(b, `,"streamed":`...)
	b = strconv.AppendBool(b, r.Streamed)
	b = append(b, `,"cancelled":`...)
	b = strconv.AppendBool(b, r.Cancelled)
	return append(b, '}', '\n')
}

// appendProgressJSON appends r as a progress line: its JSON with
// "open":true.
func appendProgressJSON(b []byte, r *Record) []byte {
	b = appendJSON(b, r)
	b = b[:len(b)-2] // "}\n"
	return append(b, `,"open":true}`+"\n"...)
}

const hexDigits = "0123456789abcdef"

// plain reports whether a byte stands for itself in a JSON string: ASCII
// but for control characters, the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD (as
// encoding/json does). A string with nothing to escape, as IDs and
// names are, is copied whole.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	if isPlain(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c < utf8.RuneSelf {
			if c == '"' || c == '\\' {
				b = append(b, '\\', c)
			} else {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
		} else if r, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
			i++
		} else {
			b = append(b, s[i:i+size]...)
			i += size
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// isPlain reports whether every byte of s is plain. Past 8 bytes it
// tests eight at a time as one word, the last eight overlapping those
// before: a byte's top bit is set in the mask when the byte is 0x80 or
// more, less than 0x20 (the subtraction borrows), a quote or a backslash
// (a zero of the word xor that byte, which the subtraction of ones
// finds). A borrow can set bits only above a byte that is not plain.
func isPlain(s string) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if !plain[s[i]] {
				return false
			}
		}
		return true
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; ; i += 8 {
		i = min(i, len(s)-8)
		w := s[i : i+8]
		x := uint64(w[7])<<56 | uint64(w[6])<<48 | uint64(w[5])<<40 | uint64(w[4])<<32 |
			uint64(w[3])<<24 | uint64(w[2])<<16 | uint64(w[1])<<8 | uint64(w[0])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return false
		}
		if i == len(s)-8 {
			return true
		}
	}
}
