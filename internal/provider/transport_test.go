package provider

import "testing"

// Issue 18: an open stream holds its upstream connection, and with it the
// transport's read and write buffers, for its whole life; at 32 KiB each
// they were most of the gateway's memory per open stream. The budget is
// 32 KB of resident memory per open stream in all.
func TestTransportBuffersFitStreamBudget(t *testing.T) {
	tr := NewTransport(0)
	if got := tr.ReadBufferSize + tr.WriteBufferSize; got > 8<<10 {
		t.Errorf("read %d + write %d bytes of buffer per upstream connection, want at most 8 KiB",
			tr.ReadBufferSize, tr.WriteBufferSize)
	}
}
