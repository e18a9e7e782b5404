package store

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// copyRows is the binary COPY data of records in usageColumns order, an
// io.Reader that encodes rows as they are read: pgconn reads it on a
// goroutine of its own, 64 KiB at a time, while the server takes the
// rows sent before. Each value is encoded straight from the record, as
// the column's type has it on the wire (text as its bytes, BIGINT and
// INTEGER big-endian, BOOLEAN as one byte): through pgx's CopyFrom
// every value was boxed, then looked up in its type map, which was most
// of the client's time per row. The column types are those of the
// ledger; a change to them must change usageColumns, the staging table
// (a copy of the ledger's) and appendCopyRow together.
type copyRows struct {
	recs []*meter.Record // the rows not yet encoded
	buf  []byte          // encoded rows; read up to off
	off  int
	head bool // the header is encoded
	done bool // the trailer is encoded
}

// copySignature begins binary COPY data, followed by the flags and the
// header extension's length, both 0.
const copySignature = "PGCOPY\n\xff\r\n\x00"

func (c *copyRows) Read(p []byte) (int, error) {
	if c.off == len(c.buf) {
		c.buf, c.off = c.buf[:0], 0
		for len(c.buf) < len(p) && !c.done {
			switch {
			case !c.head:
				c.buf = append(append(c.buf, copySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
				c.head = true
			case len(c.recs) > 0:
				c.buf = appendCopyRow(c.buf, c.recs[0])
				c.recs = c.recs[1:]
			default:
				c.buf = binary.BigEndian.AppendUint16(c.buf, 0xffff) // -1 fields: the end
				c.done = true
			}
		}
		if len(c.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, c.buf[c.off:])
	c.off += n
	return n, nil
}

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
