package store

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteUsageCSV writes rows, grouped by by ("day", "model" or "key", as
// in UsageQuery), as CSV: a header line, then a line per row. It is the
// one format of both `switchyard usage --csv` and the dashboard's export.
func WriteUsageCSV(w io.Writer, by string, rows []UsageRow) error {
	if _, ok := usageGroups[by]; !ok {
		return fmt.Errorf("write usage csv: unknown grouping %q (want day, model or key)", by)
	}
	cw := csv.NewWriter(w)
	header := map[string][]string{"day": {"day"}, "model": {"model"}, "key": {"key_id", "key_name"}}[by]
	cw.Write(append(header, "requests", "errors", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd"))
	for _, r := range rows {
		group := []string{r.Day}
		switch by {
		case "model":
			group = []string{r.Model}
		case "key":
			group = []string{r.KeyID, r.KeyName}
		}
		cw.Write(append(group, strconv.FormatInt(r.Requests, 10), strconv.FormatInt(r.Errors, 10),
			strconv.FormatInt(r.PromptTokens, 10), strconv.FormatInt(r.CompletionTokens, 10),
			strconv.FormatInt(r.TotalTokens, 10), r.Cost.String()))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write usage csv: %w", err)
	}
	return nil
}
