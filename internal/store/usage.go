package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

var _ meter.Sink = (*Store)(nil)

// usageColumns are the ledger's columns as the writers give them, in the
// order of appendUsageArgs (SQLite) and appendCopyRow (PostgreSQL).
const usageColumns = `id, request_id, created_at, account_id, key_id, endpoint, model, provider, upstream_model,
	prompt_tokens, completion_tokens, total_tokens, cached_tokens, tokens_estimated,
	input_price, output_price, price_version, cost, latency_us, ttft_us, status, error_type, streamed, cancelled,
	cached_price, requested_model, deployment, attempts`

// WriteUsage stores each record whose ID is not stored yet and adds
// exactly those to the daily rollup, in one transaction; it returns how
// many were new. PostgreSQL takes the batch by COPY (writeUsageCopy),
// SQLite by prepared inserts. Writers on several replicas take row locks
// in the same order (records by ID, then rollup rows by key), so they
// never deadlock.
func (s *Store) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	unique := uniqueByID(recs)
	if len(unique) == 0 {
		return 0, nil
	}
	if s.postgres {
		n, err := s.writeUsageCopy(ctx, unique)
		if err != nil {
			return 0, fmt.Errorf("write usage: %w", err)
		}
		return n, nil
	}
	var inserted []*meter.Record
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if inserted, err = s.insertUsage(ctx, tx, unique); err != nil {
			return err
		}
		return s.upsertDaily(ctx, tx, rollup(inserted))
	})
	if err != nil {
		return 0, fmt.Errorf("write usage: %w", err)
	}
	return len(inserted), nil
}

// uniqueByID returns pointers to recs sorted by ID with repeated IDs
// dropped (the first one of each stays, as the database would keep it).
// Pointers, not copies: a batch is hundreds of records.
func uniqueByID(recs []meter.Record) []*meter.Record {
	out := make([]*meter.Record, len(recs))
	for i := range recs {
		out[i] = &recs[i]
	}
	slices.SortStableFunc(out, func(a, b *meter.Record) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b *meter.Record) bool { return a.ID == b.ID })
}

// appendUsageArgs appends r's values in usageColumns order to args.
// A value equal to the one in the same column of one of the last
// sameRows records in args (the rows before it in a multi-row insert)
// shares that one's boxed interface value: account, key, model,
// endpoint, provider and prices mostly repeat among the requests of a
// moment, and every string or integer over 255 boxed anew was an
// allocation: appendUsageArgs made a tenth of the gateway's under load
// (issue 18). Status and attempts go as int64, which database/sql passes
// on as it is; an int it converts by reflection.
func appendUsageArgs(args []any, r *meter.Record) []any {
	p := args // the rows before r, where same looks
	return append(args, r.ID, same(p, 1, r.RequestID), same(p, 2, millis(r.Time)), same(p, 3, r.AccountID),
		same(p, 4, r.KeyID), same(p, 5, r.Endpoint), same(p, 6, r.Model), same(p, 7, r.Provider),
		same(p, 8, r.UpstreamModel), same(p, 9, r.PromptTokens), same(p, 10, r.CompletionTokens),
		same(p, 11, r.TotalTokens), same(p, 12, r.CachedTokens), r.Estimated, same(p, 14, r.InputPrice),
		same(p, 15, r.OutputPrice), same(p, 16, r.PriceVersion), same(p, 17, int64(r.Cost)),
		same(p, 18, r.Latency.Microseconds()), same(p, 19, r.TTFT.Microseconds()), same(p, 20, int64(r.Status)),
		same(p, 21, r.ErrorType), r.Streamed, r.Cancelled, same(p, 24, r.CachedPrice),
		same(p, 25, r.RequestedModel), same(p, 26, r.Deployment), same(p, 27, int64(r.Attempts)))
}

// sameRows is how many of the previous rows appendUsageArgs looks in for
// a value to share: enough for a few keys or models taking turns.
const sameRows = 4

// same returns v as an interface value: that of column i of one of the
// last sameRows rows of usageColumns values in args when it holds v (of
// the same type), so that no new one is made, or else a new one.
func same[T comparable](args []any, i int, v T) any {
	n := len(usageColumnNames)
	for j := len(args) - n + i; j >= 0 && j >= len(args)-sameRows*n; j -= n {
		if p, ok := args[j].(T); ok && p == v {
			return args[j]
		}
	}
	return v
}

// usageRows is the most rows of one of the SQLite writer's multi-row
// statements (the inserts, and the rollup's upserts): enough to share
// one statement's run among many rows, few enough that the statement is
// prepared once and binds quickly.
const usageRows = 32

// insertUsage inserts recs (unique IDs, sorted) on SQLite and returns
// those that were new, by prepared multi-row statements (inParts).
func (s *Store) insertUsage(ctx context.Context, tx *sql.Tx, recs []*meter.Record) ([]*meter.Record, error) {
	out := make([]*meter.Record, 0, len(recs))
	args := make([]any, 0, min(len(recs), usageRows)*len(usageColumnNames))
	err := inParts(len(recs), func(rows int) (*sql.Stmt, error) { return s.usageInsert(ctx, tx, rows) },
		func(st *sql.Stmt, from, to int) error {
			args = args[:0]
			for _, r := range recs[from:to] {
				args = appendUsageArgs(args, r)
			}
			var err error
			out, err = insertRows(ctx, tx, st, args, recs[from:to], out)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("insert records: %w", err)
	}
	return out, nil
}

// inParts calls run for consecutive parts of n rows, from and to being a
// part's bounds: usageRows rows at a time, then one part each of 16, 8,
// 4, 2 and 1 rows as the remainder requires, at most five, with the
// statement stmt gives for that many rows (one by one, a remainder cost
// a statement per row). A few statements, each prepared once, serve every
// count.
func inParts(n int, stmt func(rows int) (*sql.Stmt, error), run func(st *sql.Stmt, from, to int) error) error {
	for rows, from := usageRows, 0; from < n; rows /= 2 {
		if n-from < rows {
			continue
		}
		st, err := stmt(rows)
		if err != nil {
			return err
		}
		for ; n-from >= rows; from += rows {
			if err := run(st, from, from+rows); err != nil {
				st.Close()
				return err
			}
		}
		st.Close()
	}
	return nil
}

// insertRows runs the insert st of part (sorted by ID) with args and
// appends the records it inserted to out, in part's order. Usually it
// inserted all of them or none, as its count says. Otherwise the rows it
// inserted are those with the rowids SQLite gave them: each new row gets
// the largest rowid so far plus one (until the largest is 2^63-1, which
// no ledger reaches; the count found is checked), so the count of rows
// it inserted, ending at the last inserted rowid, holds exactly them,
// within the transaction's write lock. That costs a query in the rare
// batch that meets a stored ID (a replay), where returning every
// inserted ID (RETURNING id) cost about a tenth of the writer's time in
// every batch.
func insertRows(ctx context.Context, tx *sql.Tx, st *sql.Stmt, args []any, part, out []*meter.Record) ([]*meter.Record, error) {
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return out, err
	}
	if n == int64(len(part)) {
		return append(out, part...), nil
	}
	last, err := res.LastInsertId()
	if err != nil {
		return nil, err
	}
	ids, err := queryRows(ctx, tx, scanString, `SELECT id FROM usage_records WHERE rowid > $1 AND rowid <= $2`, last-n, last)
	if err != nil {
		return nil, err
	}
	if len(ids) != int(n) {
		return nil, fmt.Errorf("%d records inserted, %d found by their rowids", n, len(ids))
	}
	slices.Sort(ids)
	for _, r := range part {
		if _, found := slices.BinarySearch(ids, r.ID); found {
			out = append(out, r)
		}
	}
	return out, nil
}

// usageInsert returns the insert of rows records, prepared on the pool
// on first use, for tx.
// INSERT OR IGNORE, not ON CONFLICT (id) DO NOTHING: both skip a stored
// ID, but a statement that may abort halfway (a NOT NULL check, which
// our values never fail) makes SQLite copy every page it changes to a
// statement journal first, a fifth of the writer's time at 32 rows a
// statement; with OR IGNORE no check aborts, so there is no journal.
func (s *Store) usageInsert(ctx context.Context, tx *sql.Tx, rows int) (*sql.Stmt, error) {
	return s.prepared(ctx, tx, &s.usageStmts, rows, func() string {
		return `INSERT OR IGNORE INTO usage_records (` + usageColumns + `) VALUES ` +
			s.placeholders(rows, len(usageColumnNames))
	})
}

// prepared returns the statement of rows rows that text makes, from
// cache (guarded by stmtMu) or prepared on the pool on first use and
// kept there, for tx.
func (s *Store) prepared(ctx context.Context, tx *sql.Tx, cache *map[int]*sql.Stmt, rows int,
	text func() string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	st := (*cache)[rows]
	if st == nil {
		var err error
		if st, err = s.db.PrepareContext(ctx, text()); err != nil {
			return nil, err
		}
		if *cache == nil {
			*cache = map[int]*sql.Stmt{}
		}
		(*cache)[rows] = st
	}
	return tx.StmtContext(ctx, st), nil
}

// dailyKey identifies a usage_daily row.
type dailyKey struct{ account, day, model, key string }

// dailyTotals are the sums of one usage_daily row.
type dailyTotals struct{ requests, errors, prompt, completion, total, cost int64 }

type dailyRow struct {
	dailyKey
	dailyTotals
}

// rollup sums recs by account, UTC day, model and key, sorted by those.
// A batch's records are mostly of one day, whose name is formatted once
// (a string made per record was an allocation each).
func rollup(recs []*meter.Record) []dailyRow {
	sums := map[dailyKey]*dailyTotals{}
	var day string
	var from, to time.Time // the UTC day named day
	for _, r := range recs {
		if r.Time.Before(from) || !r.Time.Before(to) {
			from = r.Time.UTC().Truncate(24 * time.Hour)
			to = from.Add(24 * time.Hour)
			day = from.Format(time.DateOnly)
		}
		k := dailyKey{r.AccountID, day, r.Model, r.KeyID}
		t := sums[k]
		if t == nil {
			t = &dailyTotals{}
			sums[k] = t
		}
		t.requests++
		if r.Status >= 400 {
			t.errors++
		}
		t.prompt += r.PromptTokens
		t.completion += r.CompletionTokens
		t.total += r.TotalTokens
		t.cost += int64(r.Cost)
	}
	out := make([]dailyRow, 0, len(sums))
	for k, t := range sums {
		out = append(out, dailyRow{k, *t})
	}
	slices.SortFunc(out, func(a, b dailyRow) int {
		return cmp.Or(strings.Compare(a.account, b.account), strings.Compare(a.day, b.day),
			strings.Compare(a.model, b.model), strings.Compare(a.key, b.key))
	})
	return out
}

// dailyAdd ends an INSERT into usage_daily: a row already there gets the
// new row's totals added.
const dailyAdd = `
	ON CONFLICT (account_id, day, model, key_id) DO UPDATE SET
		requests = usage_daily.requests + excluded.requests,
		errors = usage_daily.errors + excluded.errors,
		prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens,
		completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens,
		total_tokens = usage_daily.total_tokens + excluded.total_tokens,
		cost = usage_daily.cost + excluded.cost`

// upsertDaily adds rows to usage_daily, in their order, by prepared
// multi-row statements (inParts).
func (s *Store) upsertDaily(ctx context.Context, tx *sql.Tx, rows []dailyRow) error {
	const cols = 10
	args := make([]any, 0, min(len(rows), usageRows)*cols)
	err := inParts(len(rows), func(n int) (*sql.Stmt, error) {
		return s.prepared(ctx, tx, &s.dailyStmts, n, func() string {
			return `INSERT INTO usage_daily (account_id, day, model, key_id,
				requests, errors, prompt_tokens, completion_tokens, total_tokens, cost)
			VALUES ` + s.placeholders(n, cols) + dailyAdd
		})
	}, func(st *sql.Stmt, from, to int) error {
		args = args[:0]
		for _, r := range rows[from:to] {
			args = append(args, r.account, r.day, r.model, r.key,
				r.requests, r.errors, r.prompt, r.completion, r.total, r.cost)
		}
		_, err := st.ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("update daily usage: %w", err)
	}
	return nil
}

// placeholders returns the VALUES list of rows × cols parameters: on
// PostgreSQL "($1, $2), ($3, $4)" for rows=2, cols=2, on SQLite the same
// with anonymous "?", because SQLite resolves each "$N" by a linear search
// of the statement's names (quadratic for thousands of parameters) while
// "?" binds by position. The statement must have no other parameters.
func (s *Store) placeholders(rows, cols int) string {
	var b strings.Builder
	n := 1
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			if s.postgres {
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(n))
			} else {
				b.WriteByte('?')
			}
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// ListUsage returns up to limit records of the account ("" for every
// account), newest first. A limit of 0 or less means 100.
func (s *Store) ListUsage(ctx context.Context, accountID string, limit int) ([]meter.Record, error) {
	if limit <= 0 {
		limit = 100
	}
	q, args := `SELECT `+usageColumns+` FROM usage_records`, []any{}
	if accountID != "" {
		q, args = q+` WHERE account_id = $1`, append(args, accountID)
	}
	args = append(args, limit)
	q += ` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args))
	out, err := queryRows(ctx, s.db, scanUsage, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list usage: %w", err)
	}
	return out, nil
}

func scanUsage(row interface{ Scan(...any) error }) (meter.Record, error) {
	var r meter.Record
	var created, latency, ttft int64
	err := row.Scan(&r.ID, &r.RequestID, &created, &r.AccountID, &r.KeyID, &r.Endpoint, &r.Model,
		&r.Provider, &r.UpstreamModel, &r.PromptTokens, &r.CompletionTokens, &r.TotalTokens, &r.CachedTokens,
		&r.Estimated, &r.InputPrice, &r.OutputPrice, &r.PriceVersion, (*int64)(&r.Cost), &latency,
		&ttft, &r.Status, &r.ErrorType, &r.Streamed, &r.Cancelled, &r.CachedPrice,
		&r.RequestedModel, &r.Deployment, &r.Attempts)
	if err != nil {
		return meter.Record{}, err
	}
	r.Time = time.UnixMilli(created).UTC()
	r.Latency, r.TTFT = time.Duration(latency)*time.Microsecond, time.Duration(ttft)*time.Microsecond
	return r, nil
}

// CountUsage returns how many records the account ("" for every account)
// has in the ledger.
func (s *Store) CountUsage(ctx context.Context, accountID string) (int64, error) {
	q, args := `SELECT COUNT(*) FROM usage_records`, []any{}
	if accountID != "" {
		q, args = q+` WHERE account_id = $1`, append(args, accountID)
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count usage: %w", err)
	}
	return n, nil
}

// UsageQuery selects and groups the daily rollup.
type UsageQuery struct {
	AccountID string
	// Since and Until are the first and last UTC days included; zero
	// leaves that end open.
	Since, Until time.Time
	// By is the group: "day", "model" or "key".
	By string
}

// UsageRow is the totals of one group; only the group's column (Day,
// Model, or KeyID with KeyName) is set.
type UsageRow struct {
	Day              string // "2006-01-02"
	Model            string
	KeyID            string
	KeyName          string // "" when the key is unknown
	Requests         int64
	Errors           int64
	PromptTokens     int64
	CompletionTokens int64
	TotalTokens      int64
	Cost             usd.Amount
}

// usageGroups maps UsageQuery.By to its select list and group column.
var usageGroups = map[string]struct{ sel, group string }{
	"day":   {"d.day", "d.day"},
	"model": {"d.model", "d.model"},
	"key":   {"d.key_id, COALESCE(k.name, '')", "d.key_id, k.name"},
}

// UsageSummary returns the account's usage totals per group, ordered by
// the group column.
func (s *Store) UsageSummary(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	g, ok := usageGroups[q.By]
	if !ok {
		return nil, fmt.Errorf("usage summary: unknown grouping %q (want day, model or key)", q.By)
	}
	since, until := "0000-01-01", "9999-12-31"
	if !q.Since.IsZero() {
		since = q.Since.UTC().Format(time.DateOnly)
	}
	if !q.Until.IsZero() {
		until = q.Until.UTC().Format(time.DateOnly)
	}
	join := ""
	if q.By == "key" {
		join = ` LEFT JOIN api_keys k ON k.id = d.key_id`
	}
	scan := func(row interface{ Scan(...any) error }) (UsageRow, error) {
		var r UsageRow
		dest := []any{&r.Day}
		switch q.By {
		case "model":
			dest = []any{&r.Model}
		case "key":
			dest = []any{&r.KeyID, &r.KeyName}
		}
		dest = append(dest, &r.Requests, &r.Errors, &r.PromptTokens, &r.CompletionTokens, &r.TotalTokens, (*int64)(&r.Cost))
		err := row.Scan(dest...)
		return r, err
	}
	out, err := queryRows(ctx, s.db, scan, `SELECT `+g.sel+`,
			CAST(SUM(d.requests) AS BIGINT), CAST(SUM(d.errors) AS BIGINT), CAST(SUM(d.prompt_tokens) AS BIGINT),
			CAST(SUM(d.completion_tokens) AS BIGINT), CAST(SUM(d.total_tokens) AS BIGINT), CAST(SUM(d.cost) AS BIGINT)
		FROM usage_daily d`+join+`
		WHERE d.account_id = $1 AND d.day >= $2 AND d.day <= $3
		GROUP BY `+g.group+` ORDER BY `+g.group, q.AccountID, since, until)
	if err != nil {
		return nil, fmt.Errorf("usage summary: %w", err)
	}
	return out, nil
}

// MonthSpend returns the spend of the account, and of its key keyID
// (0 when keyID is ""), in period "2006-01" (UTC), from the daily rollup.
func (s *Store) MonthSpend(ctx context.Context, accountID, keyID, period string) (account, key usd.Amount, err error) {
	if !validPeriod(period) {
		return 0, 0, fmt.Errorf("month spend: period %q is not a month such as 2006-01", period)
	}
	var a, k int64
	err = s.db.QueryRowContext(ctx, `SELECT
			COALESCE(CAST(SUM(cost) AS BIGINT), 0),
			COALESCE(CAST(SUM(CASE WHEN key_id = $2 THEN cost ELSE 0 END) AS BIGINT), 0)
		FROM usage_daily WHERE account_id = $1 AND day >= $3 AND day <= $4`,
		accountID, keyID, period+"-01", period+"-31").Scan(&a, &k)
	if err != nil {
		return 0, 0, fmt.Errorf("month spend: %w", err)
	}
	if keyID == "" {
		k = 0
	}
	return usd.Amount(a), usd.Amount(k), nil
}

// SpendByAccount returns every account's spend in period "2006-01"
// (UTC), from the daily rollup; an account without any is absent.
func (s *Store) SpendByAccount(ctx context.Context, period string) (map[string]usd.Amount, error) {
	if !validPeriod(period) {
		return nil, fmt.Errorf("spend by account: period %q is not a month such as 2006-01", period)
	}
	type spend struct {
		id   string
		cost int64
	}
	rows, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (spend, error) {
		var v spend
		err := row.Scan(&v.id, &v.cost)
		return v, err
	}, `SELECT account_id, CAST(SUM(cost) AS BIGINT) FROM usage_daily WHERE day >= $1 AND day <= $2 GROUP BY account_id`,
		period+"-01", period+"-31")
	if err != nil {
		return nil, fmt.Errorf("spend by account: %w", err)
	}
	out := make(map[string]usd.Amount, len(rows))
	for _, r := range rows {
		out[r.id] = usd.Amount(r.cost)
	}
	return out, nil
}

// validPeriod reports whether p is a calendar month such as "2006-01".
func validPeriod(p string) bool {
	t, err := time.Parse("2006-01", p)
	return err == nil && t.Format("2006-01") == p
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryRows runs query and returns every row as read by scan.
func queryRows[T any](ctx context.Context, q querier, scan func(interface{ Scan(...any) error }) (T, error),
	query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func scanString(row interface{ Scan(...any) error }) (string, error) {
	var v string
	err := row.Scan(&v)
	return v, err
}
