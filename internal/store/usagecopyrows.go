package store

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// copySignature begins binary COPY data, followed by the flags and the
// header extension's length, both 0.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// encodeCopyRows returns the binary COPY data of recs in usageColumns
// order: a header, one row per record and a trailer, copyRowFixed bytes
// a row plus its strings, in one allocation. Each value is encoded
// straight from the record, as the column's type has it on the wire
// (text as its bytes, BIGINT and INTEGER big-endian, BOOLEAN as one
// byte): through pgx's CopyFrom every value was boxed, then looked up in
// its type map, which was most of the client's time per row. The whole
// batch is encoded before the COPY starts, into a buffer of its own that
// nothing reuses: pgconn reads the data on a goroutine that can outlive
// CopyFrom (it returns at the deadline or on a server error without
// waiting for it), and the meter reuses its records once WriteUsage
// returns. The column types are hard-coded here as the ledger has them
// (the staging table is created LIKE the ledger, so it follows): a
// change to a column's type must change appendCopyRow with it, which
// TestCopyColumnTypes (the schema against the types the encoder assumes)
// and TestEncodeCopyRows (the encoding of those types against pgx's)
// catch when it does not.
func encodeCopyRows(recs []*meter.Record) []byte {
	size := len(copySignature) + 8 + 2
	for _, r := range recs {
		size += copyRowFixed + len(r.ID) + len(r.RequestID) + len(r.AccountID) + len(r.KeyID) +
			len(r.Endpoint) + len(r.Model) + len(r.Provider) + len(r.UpstreamModel) + len(r.PriceVersion) +
			len(r.ErrorType) + len(r.RequestedModel) + len(r.Deployment)
	}
	b := append(make([]byte, 0, size), copySignature...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, r := range recs {
		b = appendCopyRow(b, r)
	}
	return binary.BigEndian.AppendUint16(b, 0xffff) // -1 fields: the end
}

// copyRowFixed is the size of a row without its text values: the field
// count, each field's length, 11 BIGINTs, 2 INTEGERs and 3 BOOLEANs.
const copyRowFixed = 2 + 4*28 + 8*11 + 4*2 + 3

// appendCopyRow appends r's row to b: its field count, then each value
// of usageColumns as its length and bytes.
func appendCopyRow(b []byte, r *meter.Record) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(usageColumnNames)))
	b = copyText(b, r.ID)
	b = copyText(b, r.RequestID)
	b = copyBigint(b, millis(r.Time))
	for _, s := range [...]string{r.AccountID, r.KeyID, r.Endpoint, r.Model, r.Provider, r.UpstreamModel} {
		b = copyText(b, s)
	}
	for _, v := range [...]int64{r.PromptTokens, r.CompletionTokens, r.TotalTokens, r.CachedTokens} {
		b = copyBigint(b, v)
	}
	b = copyBool(b, r.Estimated)
	b = copyBigint(b, r.InputPrice)
	b = copyBigint(b, r.OutputPrice)
	b = copyText(b, r.PriceVersion)
	for _, v := range [...]int64{int64(r.Cost), r.Latency.Microseconds(), r.TTFT.Microseconds()} {
		b = copyBigint(b, v)
	}
	b = copyInteger(b, r.Status)
	b = copyText(b, r.ErrorType)
	b = copyBool(b, r.Streamed)
	b = copyBool(b, r.Cancelled)
	b = copyBigint(b, r.CachedPrice)
	b = copyText(b, r.RequestedModel)
	b = copyText(b, r.Deployment)
	return copyInteger(b, r.Attempts)
}

func copyText(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

func copyBigint(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, 8), uint64(v))
}

// copyInteger appends v as an INTEGER, which checkCopyRows has found in
// range.
func copyInteger(b []byte, v int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, 4), uint32(int32(v)))
}

func copyBool(b []byte, v bool) []byte {
	b = binary.BigEndian.AppendUint32(b, 1)
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// checkCopyRows returns an error for a record whose status or attempt
// count does not fit the ledger's INTEGER columns, before any row is
// sent, rather than storing it truncated.
func checkCopyRows(recs []*meter.Record) error {
	for _, r := range recs {
		if r.Status < math.MinInt32 || r.Status > math.MaxInt32 || r.Attempts < math.MinInt32 || r.Attempts > math.MaxInt32 {
			return fmt.Errorf("record %s: status %d or attempts %d out of range for an INTEGER", r.ID, r.Status, r.Attempts)
		}
	}
	return nil
}
