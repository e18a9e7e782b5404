package meter

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendJSON appends r as one JSON object, the same document that
// encoding/json makes of a Record (field names from its tags, times in
// RFC 3339, durations and amounts as integers) without reflection: it
// runs once per request on the request path.
func appendJSON(b []byte, r *Record) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	b = appendField(b, "request_id", r.RequestID)
	b = append(b, `,"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendField(b, "account_id", r.AccountID)
	b = appendField(b, "key_id", r.KeyID)
	b = appendField(b, "endpoint", r.Endpoint)
	b = appendField(b, "model", r.Model)
	b = appendField(b, "provider", r.Provider)
	b = appendField(b, "upstream_model", r.UpstreamModel)
	b = appendField(b, "requested_model", r.RequestedModel)
	b = appendField(b, "deployment", r.Deployment)
	b = appendInt(b, "attempts", int64(r.Attempts))
	b = appendInt(b, "prompt_tokens", r.PromptTokens)
	b = appendInt(b, "completion_tokens", r.CompletionTokens)
	b = appendInt(b, "total_tokens", r.TotalTokens)
	b = appendInt(b, "cached_tokens", r.CachedTokens)
	b = appendBool(b, "estimated", r.Estimated)
	b = appendInt(b, "input_price", r.InputPrice)
	b = appendInt(b, "cached_price", r.CachedPrice)
	b = appendInt(b, "output_price", r.OutputPrice)
	b = appendField(b, "price_version", r.PriceVersion)
	b = appendInt(b, "cost", int64(r.Cost))
	b = appendInt(b, "latency", int64(r.Latency))
	b = appendInt(b, "ttft", int64(r.TTFT))
	b = appendInt(b, "status", int64(r.Status))
	b = appendField(b, "error_type", r.ErrorType)
	b = appendBool(b, "streamed", r.Streamed)
	b = appendBool(b, "cancelled", r.Cancelled)
	return append(b, '}', '\n')
}

// appendProgressJSON appends r as a progress line: its JSON with
// "open":true.
func appendProgressJSON(b []byte, r *Record) []byte {
	b = appendJSON(b, r)
	b = b[:len(b)-2] // "}\n"
	return append(b, `,"open":true}`+"\n"...)
}

func appendField(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendInt(b []byte, name string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func appendBool(b []byte, name string, v bool) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendBool(b, v)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD (as
// encoding/json does).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
