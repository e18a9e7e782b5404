package store

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// TestCopyRowsReadSizes reads the COPY data of a few records in reads of
// several sizes, smaller and larger than a row: each gives the same
// bytes, a header, one row per record with every column and a trailer.
func TestCopyRowsReadSizes(t *testing.T) {
	recs := []*meter.Record{
		{ID: "rec_1", Model: strings.Repeat("m", 300), Status: 200, Attempts: 1, Estimated: true},
		{ID: "rec_2", Status: -1, Attempts: 0, PromptTokens: -5},
		{ID: "rec_3"},
	}
	want := []byte(copySignature + "\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, r := range recs {
		want = appendCopyRow(want, r)
	}
	want = append(want, 0xff, 0xff)
	if fields := binary.BigEndian.Uint16(want[len(copySignature)+8:]); int(fields) != len(usageColumnNames) {
		t.Fatalf("row of %d fields, want %d", fields, len(usageColumnNames))
	}
	for _, size := range []int{1, 7, 100, 65531} {
		c := &copyRows{recs: recs}
		var got []byte
		p := make([]byte, size)
		for {
			n, err := c.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 {
				t.Fatalf("read %d: %d, %v", size, n, err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("reads of %d bytes gave %d bytes, want %d", size, len(got), len(want))
		}
	}
}
