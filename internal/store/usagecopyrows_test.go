package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// copyColumnTypes is the PostgreSQL type of each of usageColumns, as
// appendCopyRow encodes it; TestCopyColumnTypes checks it against the
// ledger's schema.
var copyColumnTypes = map[string]uint32{
	"id": pgtype.TextOID, "request_id": pgtype.TextOID, "created_at": pgtype.Int8OID,
	"account_id": pgtype.TextOID, "key_id": pgtype.TextOID, "endpoint": pgtype.TextOID,
	"model": pgtype.TextOID, "provider": pgtype.TextOID, "upstream_model": pgtype.TextOID,
	"prompt_tokens": pgtype.Int8OID, "completion_tokens": pgtype.Int8OID, "total_tokens": pgtype.Int8OID,
	"cached_tokens": pgtype.Int8OID, "tokens_estimated": pgtype.BoolOID,
	"input_price": pgtype.Int8OID, "output_price": pgtype.Int8OID, "price_version": pgtype.TextOID,
	"cost": pgtype.Int8OID, "latency_us": pgtype.Int8OID, "ttft_us": pgtype.Int8OID,
	"status": pgtype.Int4OID, "error_type": pgtype.TextOID, "streamed": pgtype.BoolOID,
	"cancelled": pgtype.BoolOID, "cached_price": pgtype.Int8OID, "requested_model": pgtype.TextOID,
	"deployment": pgtype.TextOID, "attempts": pgtype.Int4OID,
}

// TestEncodeCopyRows checks the COPY data of records with values at
// their types' limits against the binary COPY format built with pgx's
// own encoders: a header, then for each row its field count and each of
// usageColumns' values (appendUsageArgs, the SQLite writer's arguments)
// encoded as copyColumnTypes has its type, after its length; then -1.
func TestEncodeCopyRows(t *testing.T) {
	if len(copyColumnTypes) != len(usageColumnNames) {
		t.Fatalf("%d column types for %d columns", len(copyColumnTypes), len(usageColumnNames))
	}
	recs := []*meter.Record{
		{ID: "rec_1", RequestID: "req", Time: time.UnixMilli(1_777_000_000_123), AccountID: "acct", KeyID: "key",
			Endpoint: "chat.completions", Model: "模型-ü", Provider: "p", UpstreamModel: "u",
			PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 4, Estimated: true,
			InputPrice: 5, OutputPrice: 6, PriceVersion: "v1", Cost: 7, Latency: 8 * time.Microsecond,
			TTFT: 9 * time.Microsecond, Status: 200, ErrorType: "e", Streamed: true,
			CachedPrice: 10, RequestedModel: strings.Repeat("r", 300), Deployment: "d", Attempts: 2},
		{ID: "rec_2", Time: time.UnixMilli(-1), PromptTokens: math.MinInt64, CompletionTokens: math.MaxInt64,
			TotalTokens: -1, InputPrice: math.MaxInt64, Cost: math.MinInt64, Latency: -time.Microsecond,
			Status: math.MinInt32, Attempts: math.MaxInt32},
		{ID: "rec_3", Status: -1, Cancelled: true},
	}
	types := pgtype.NewMap()
	want := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, r := range recs {
		want = binary.BigEndian.AppendUint16(want, uint16(len(usageColumnNames)))
		for i, v := range appendUsageArgs(nil, r) {
			col := usageColumnNames[i]
			oid, ok := copyColumnTypes[col]
			if !ok {
				t.Fatalf("no type for column %s", col)
			}
			val, err := types.Encode(oid, pgtype.BinaryFormatCode, v, nil)
			if err != nil {
				t.Fatalf("record %s, column %s: %v", r.ID, col, err)
			}
			want = append(binary.BigEndian.AppendUint32(want, uint32(len(val))), val...)
		}
	}
	want = append(want, 0xff, 0xff)
	got := encodeCopyRows(recs)
	if len(got) != cap(got) {
		t.Errorf("COPY data of %d bytes in a buffer of %d, sized wrong", len(got), cap(got))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("COPY data of %d bytes differs from pgx's of %d:\n got %q\nwant %q", len(got), len(want), got, want)
	}
}
