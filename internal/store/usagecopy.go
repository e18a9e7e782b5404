package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// usageStage is the per-connection staging table of the PostgreSQL
// writer: created once per connection, emptied by every commit. It has
// no index and writes no WAL, so COPY into it costs little more than the
// bytes on the wire.
const usageStage = `CREATE TEMP TABLE IF NOT EXISTS usage_stage
	(LIKE usage_records INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`

// usageFromStage moves the staged records into the ledger, skipping IDs
// already stored, and adds exactly the inserted ones to the daily rollup;
// it returns how many were inserted. The rollup's day is the UTC day of
// created_at (Unix milliseconds, floored to whole days), as rollup
// computes it, formatted after grouping and independent of the session's
// time zone. Rows are taken in ID order and rollup rows in key order, the
// lock order of WriteUsage.
const usageFromStage = `WITH ins AS (
	INSERT INTO usage_records (` + usageColumns + `)
	SELECT ` + usageColumns + ` FROM pg_temp.usage_stage ORDER BY id
	ON CONFLICT (id) DO NOTHING
	RETURNING account_id, created_at, model, key_id, status,
		prompt_tokens, completion_tokens, total_tokens, cost
), sums AS (
	SELECT account_id, created_at / 86400000 - (created_at % 86400000 < 0)::integer AS day_n,
		model, key_id, count(*) AS requests, count(*) FILTER (WHERE status >= 400) AS errors,
		sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion, sum(total_tokens) AS total,
		sum(cost) AS cost
	FROM ins GROUP BY 1, 2, 3, 4
), daily AS (
	INSERT INTO usage_daily (account_id, day, model, key_id,
		requests, errors, prompt_tokens, completion_tokens, total_tokens, cost)
	SELECT account_id, to_char((DATE '1970-01-01' + day_n::integer)::timestamp, 'YYYY-MM-DD'),
		model, key_id, requests, errors, prompt, completion, total, cost
	FROM sums ORDER BY account_id, day_n, model, key_id
` + dailyAdd + `
)
SELECT count(*) FROM ins`

// usageColumnNames is usageColumns as a list, for COPY.
var usageColumnNames = strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",")

// writeUsageCopy is WriteUsage on PostgreSQL: in one transaction on one
// pgx connection, it copies recs (unique IDs) into the staging table and
// moves them with usageFromStage.
func (s *Store) writeUsageCopy(ctx context.Context, recs []*meter.Record) (int, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("driver connection is a %T, not pgx", dc)
		}
		return pgx.BeginFunc(ctx, c.Conn(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, usageStage); err != nil {
				return fmt.Errorf("create staging table: %w", err)
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"pg_temp", "usage_stage"}, usageColumnNames,
				pgx.CopyFromSlice(len(recs), func(i int) ([]any, error) { return usageArgs(recs[i]), nil }))
			if err != nil {
				return fmt.Errorf("copy records: %w", err)
			}
			if err := tx.QueryRow(ctx, usageFromStage).Scan(&n); err != nil {
				return fmt.Errorf("insert records: %w", err)
			}
			return nil
		})
	})
	return n, err
}
