package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// usageStage is the per-connection staging table of the PostgreSQL
// writer's slow path: created once per connection, emptied by every
// commit. It has no index and writes no WAL, so COPY into it costs little
// more than the bytes on the wire.
const usageStage = `CREATE TEMP TABLE IF NOT EXISTS usage_stage
	(LIKE usage_records INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`

// usageFromStage moves the staged records into the ledger, skipping IDs
// already stored, and adds exactly the inserted ones to the daily rollup;
// it returns how many were inserted. The rollup's day is the UTC day of
// created_at (Unix milliseconds, floored to whole days), as rollup
// computes it, formatted after grouping and independent of the session's
// time zone. Rows are taken in ID order by bytes (COLLATE "C", the order
// of uniqueByID and so of the fast path's COPY) and rollup rows in key
// order, the lock order of WriteUsage.
const usageFromStage = `WITH ins AS (
	INSERT INTO usage_records (` + usageColumns + `)
	SELECT ` + usageColumns + ` FROM pg_temp.usage_stage ORDER BY id COLLATE "C"
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

// dailyFromArrays adds the rollup rows given as ten parallel arrays to
// usage_daily in key order, as usageFromStage does: one statement text
// whatever the number of rows, so that it is prepared once per connection.
// The arrays' text takes the database's default collation, so the keys
// are ordered by bytes (COLLATE "C") as usageFromStage's columns are:
// under another locale two batches written at once, one on each path,
// could otherwise lock the same rollup rows in opposite orders and
// deadlock.
const dailyFromArrays = `INSERT INTO usage_daily (account_id, day, model, key_id,
		requests, errors, prompt_tokens, completion_tokens, total_tokens, cost)
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
		$5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
		AS u(account_id, day, model, key_id, requests, errors, prompt, completion, total, cost)
	ORDER BY account_id COLLATE "C", day, model COLLATE "C", key_id COLLATE "C"
` + dailyAdd

// usageColumnNames is usageColumns as a list.
var usageColumnNames = strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",")

// writeUsageCopy is WriteUsage on PostgreSQL, on one pgx connection.
// Records are almost never stored already (only when a journal segment is
// replayed after a crash, or a batch is retried after a commit whose
// answer was lost), so it first copies recs (unique IDs, sorted) straight
// into the ledger and adds all of them to the rollup, in one transaction.
// A stored ID fails that COPY with a unique violation; the transaction is
// then rolled back and the batch takes the slow path, which skips the
// stored IDs (stageUsage).
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
		err := copyUsage(ctx, c.Conn(), recs)
		if err == nil {
			n = len(recs)
			return nil
		}
		if !isStoredRecord(err) {
			return err
		}
		s.usageStaged.Add(1)
		n, err = stageUsage(ctx, c.Conn(), recs)
		return err
	})
	return n, err
}

// copyUsage copies recs into usage_records and adds them to the rollup,
// in one transaction.
func copyUsage(ctx context.Context, c *pgx.Conn, recs []*meter.Record) error {
	return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if err := copyRecords(ctx, tx, "usage_records", recs); err != nil {
			return err
		}
		return addDaily(ctx, tx, rollup(recs))
	})
}

// isStoredRecord reports whether err is the unique violation of a record
// whose ID is stored already.
func isStoredRecord(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "usage_records"
}

// addDaily adds rows (in key order) to usage_daily.
func addDaily(ctx context.Context, tx pgx.Tx, rows []dailyRow) error {
	accounts, days, models, keys := make([]string, len(rows)), make([]string, len(rows)),
		make([]string, len(rows)), make([]string, len(rows))
	var sums [6][]int64
	for i := range sums {
		sums[i] = make([]int64, len(rows))
	}
	for i, r := range rows {
		accounts[i], days[i], models[i], keys[i] = r.account, r.day, r.model, r.key
		for j, v := range [...]int64{r.requests, r.errors, r.prompt, r.completion, r.total, r.cost} {
			sums[j][i] = v
		}
	}
	_, err := tx.Exec(ctx, dailyFromArrays, accounts, days, models, keys,
		sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
	if err != nil {
		return fmt.Errorf("update daily usage: %w", err)
	}
	return nil
}

// stageUsage is the slow path of writeUsageCopy: in one transaction, it
// copies recs into the staging table and moves them with usageFromStage.
func stageUsage(ctx context.Context, c *pgx.Conn, recs []*meter.Record) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, usageStage); err != nil {
			return fmt.Errorf("create staging table: %w", err)
		}
		if err := copyRecords(ctx, tx, "pg_temp.usage_stage", recs); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, usageFromStage).Scan(&n); err != nil {
			return fmt.Errorf("insert records: %w", err)
		}
		return nil
	})
	return n, err
}

// copyRecords copies recs into table (usage_records or the staging
// table, which has its columns) by binary COPY, encoded by
// encodeCopyRows.
func copyRecords(ctx context.Context, tx pgx.Tx, table string, recs []*meter.Record) error {
	if err := checkCopyRows(recs); err != nil {
		return fmt.Errorf("copy records: %w", err)
	}
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(encodeCopyRows(recs)),
		`COPY `+table+` (`+usageColumns+`) FROM STDIN (FORMAT binary)`)
	if err != nil {
		return fmt.Errorf("copy records: %w", err)
	}
	// The fast path rolls up every record it copied: a row the server
	// did not store (a trigger could skip one) must fail the batch.
	if n := tag.RowsAffected(); n != int64(len(recs)) {
		return fmt.Errorf("copy records: %d of %d rows stored", n, len(recs))
	}
	return nil
}
