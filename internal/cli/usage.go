package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

func runUsage(ctx context.Context, env Env, args []string) error {
	f := newAccountFlags(env, "usage")
	since := f.fs.String("since", "", "first UTC `day` included, YYYY-MM-DD (default the first of this month)")
	until := f.fs.String("until", "", "last UTC `day` included, YYYY-MM-DD (default today)")
	by := f.fs.String("by", "day", "group by `day`, model or key")
	asJSON := jsonFlag(f.fs)
	asCSV := f.fs.Bool("csv", false, "print CSV")
	if err := f.parse(args, 0); err != nil {
		return err
	}
	q, err := usageQuery(time.Now().UTC(), *since, *until, *by)
	if err != nil {
		return err
	}
	if *asJSON && *asCSV {
		return usageErr("--json and --csv: give one of them")
	}
	st, acct, err := f.open(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	q.AccountID = acct.ID
	rows, err := st.UsageSummary(ctx, q)
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		return printJSON(env.Stdout, usageJSON(q.By, rows))
	case *asCSV:
		return store.WriteUsageCSV(env.Stdout, q.By, rows)
	}
	return printUsage(env.Stdout, q.By, rows)
}

// usageQuery checks the flags of usage; today is the default --until.
func usageQuery(today time.Time, since, until, by string) (store.UsageQuery, error) {
	q := store.UsageQuery{
		Since: time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC),
		Until: time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC),
		By:    by,
	}
	if by != "day" && by != "model" && by != "key" {
		return q, usageErr("--by: %q is not day, model or key", by)
	}
	for _, f := range []struct {
		name, value string
		t           *time.Time
	}{{"since", since, &q.Since}, {"until", until, &q.Until}} {
		if f.value == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, f.value)
		if err != nil {
			return q, usageErr("--%s: %q is not a date such as 2026-05-01", f.name, f.value)
		}
		*f.t = t
	}
	if q.Since.After(q.Until) {
		return q, usageErr("--since %s is after --until %s", q.Since.Format(time.DateOnly), q.Until.Format(time.DateOnly))
	}
	return q, nil
}

// usageGroup returns the group columns of a row: header names and values.
func usageGroup(by string, r store.UsageRow) (names, values []string) {
	switch by {
	case "model":
		return []string{"model"}, []string{r.Model}
	case "key":
		return []string{"key_id", "key_name"}, []string{r.KeyID, r.KeyName}
	}
	return []string{"day"}, []string{r.Day}
}

func usageValues(r store.UsageRow) []string {
	return []string{
		strconv.FormatInt(r.Requests, 10), strconv.FormatInt(r.Errors, 10), strconv.FormatInt(r.PromptTokens, 10),
		strconv.FormatInt(r.CompletionTokens, 10), strconv.FormatInt(r.TotalTokens, 10), r.Cost.String(),
	}
}

func printUsage(w io.Writer, by string, rows []store.UsageRow) error {
	header := map[string]string{"day": "DAY", "model": "MODEL", "key": "KEY\tNAME"}[by] +
		"\tREQUESTS\tERRORS\tPROMPT\tCOMPLETION\tTOTAL TOKENS\tCOST USD"
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		_, values := usageGroup(by, r)
		for i, v := range values {
			if v == "" {
				values[i] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(append(values, usageValues(r)...), "\t"))
	}
	return tw.Flush()
}

func usageJSON(by string, rows []store.UsageRow) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		names, values := usageGroup(by, r)
		m := map[string]any{
			"requests": r.Requests, "errors": r.Errors, "prompt_tokens": r.PromptTokens,
			"completion_tokens": r.CompletionTokens, "total_tokens": r.TotalTokens, "cost_usd": r.Cost.String(),
		}
		for j, n := range names {
			m[n] = values[j]
		}
		out[i] = m
	}
	return out
}
