package store

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// RequestCSVHeader is the header line of WriteRequestsCSV: the columns of
// the dashboard's Requests page, with IDs beside names. Times are UTC
// with milliseconds, durations milliseconds with microseconds, and cost
// exact US dollars; model_asked is empty in records written before
// migration 0006.
var RequestCSVHeader = []string{"time", "request_id", "account_id", "key_id", "key_name", "model_asked",
	"model", "deployment", "status", "latency_ms", "ttfb_ms", "prompt_tokens", "completion_tokens", "cost_usd", "error_type"}

// RequestCSV writes request log rows as CSV, page by page.
type RequestCSV struct {
	w *csv.Writer
}

// NewRequestCSV writes the header line to w and returns the writer of
// the rows.
func NewRequestCSV(w io.Writer) (*RequestCSV, error) {
	c := &RequestCSV{w: csv.NewWriter(w)}
	c.w.Write(RequestCSVHeader)
	return c, c.flush()
}

// Write writes rows and flushes them to the underlying writer.
func (c *RequestCSV) Write(rows []RequestRow) error {
	for _, r := range rows {
		c.w.Write([]string{r.Time.UTC().Format("2006-01-02T15:04:05.000Z"), r.RequestID, r.AccountID, r.KeyID,
			r.KeyName, r.RequestedModel, r.Model, r.Deployment, strconv.Itoa(r.Status), msString(r.Latency), msString(r.TTFT),
			strconv.FormatInt(r.PromptTokens, 10), strconv.FormatInt(r.CompletionTokens, 10), r.Cost.String(), r.ErrorType})
	}
	return c.flush()
}

func (c *RequestCSV) flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write requests csv: %w", err)
	}
	return nil
}

// msString formats d in milliseconds with three decimals: "1.500".
func msString(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64)
}
