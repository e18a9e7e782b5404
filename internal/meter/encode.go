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
	b = jsonenc.AppendString(b, r.ID)
	b = append(b, `,"request_id":`...)
	b = jsonenc.AppendString(b, r.RequestID)
	b = append(b, `,"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","account_id":`...)
	b = jsonenc.AppendString(b, r.AccountID)
	b = append(b, `,"key_id":`...)
	b = jsonenc.AppendString(b, r.KeyID)
	b = append(b, `,"endpoint":`...)
	b = jsonenc.AppendString(b, r.Endpoint)
	b = append(b, `,"model":`...)
	b = jsonenc.AppendString(b, r.Model)
	b = append(b, `,"provider":`...)
	b = jsonenc.AppendString(b, r.Provider)
	b = append(b, `,"upstream_model":`...)
	b = jsonenc.AppendString(b, r.UpstreamModel)
	if r.RequestedModel != "" {
		b = append(b, `,"requested_model":`...)
		b = jsonenc.AppendString(b, r.RequestedModel)
	}
	if r.Deployment != "" {
		b = append(b, `,"deployment":`...)
		b = jsonenc.AppendString(b, r.Deployment)
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
	b = jsonenc.AppendString(b, r.PriceVersion)
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
		b = jsonenc.AppendString(b, r.ErrorType)
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
