package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// The synthetic ledger of the plan and large-table tests: row i (from 0)
// is record "rec_%010d", at fillBase + (i/2)·fillStep (so rows come in
// pairs with equal times, about 90 days for 10 million rows), of account
// "acct_<h%10>" and key "key_<h%100>" (key_k is of acct_<k%10>), where h
// is i hashed to 0-255 (Knuth's multiplicative hash), answered
// by "model-<(i/7)%8>" and asked for by it too except every 50th, which
// asked for "model-asked". Statuses: 503 every 1000th (at 7), 429 every
// 100th (at 3), 400 every 500th (at 11), 200 otherwise.
var fillBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const fillStep = 1555 // milliseconds

// fillHash is SQL for row i hashed to 0-255, on both engines.
const fillHash = "((i * 2654435761) % 4294967296 / 16777216)"

// fillTime returns the time of row i.
func fillTime(i int64) time.Time {
	return fillBase.Add(time.Duration(i/2*fillStep) * time.Millisecond)
}

// fillSelect is the SELECT of rows [$2, $2+$3) for the dialect, from n,
// a table of their numbers i; $1 is fillBase in milliseconds.
func fillSelect(dialect string) string {
	id, model, fromN := "printf('rec_%010d', i)", "'model-' || ((i / 7) % 8)", "n"
	if dialect == "postgres" {
		id, fromN = "'rec_' || lpad(i::text, 10, '0')", "generate_series($2::bigint, $2::bigint + $3::bigint - 1) AS n(i)"
	}
	return `SELECT ` + id + `, 'req', $1 + (i / 2) * ` + fmt.Sprint(fillStep) + `,
		'acct_' || (` + fillHash + ` % 10), 'key_' || (` + fillHash + ` % 100), 'chat.completions', ` + model + `, 'mock', ` + model + `,
		100 + i % 50, 20 + i % 30, 120 + i % 50 + i % 30, 0, false, 2500000, 10000000, 'bench',
		(100 + i % 50) * 2500000 + (20 + i % 30) * 10000000, 100000 + i % 900000, (i % 2) * (20000 + i % 9000),
		CASE WHEN i % 1000 = 7 THEN 503 WHEN i % 100 = 3 THEN 429 WHEN i % 500 = 11 THEN 400 ELSE 200 END,
		CASE WHEN i % 1000 = 7 THEN 'server_error' WHEN i % 100 = 3 THEN 'rate_limit_exceeded'
			WHEN i % 500 = 11 THEN 'invalid_request_error' ELSE '' END,
		i % 2 = 1, false, 0,
		CASE WHEN i % 50 = 0 THEN 'model-asked' ELSE ` + model + ` END, 'mock/' || ` + model + `, 1
	FROM ` + fromN
}

// fillColumns are the columns fillSelect gives, in its order.
const fillColumns = `id, request_id, created_at, account_id, key_id, endpoint, model, provider, upstream_model,
	prompt_tokens, completion_tokens, total_tokens, cached_tokens, tokens_estimated,
	input_price, output_price, price_version, cost, latency_us, ttft_us, status, error_type, streamed, cancelled,
	cached_price, requested_model, deployment, attempts`

// fillLedger inserts rows [from, from+n) of the synthetic ledger, in
// statements of at most a million rows (SQLite: a recursive CTE;
// PostgreSQL: generate_series), and has the planner's statistics
// refreshed.
func fillLedger(t testing.TB, s *store.Store, n int64) {
	t.Helper()
	ctx := context.Background()
	const chunk = 1_000_000
	for from := int64(0); from < n; from += chunk {
		count := min(chunk, n-from)
		q := `INSERT INTO usage_records (` + fillColumns + `) ` + fillSelect(s.Dialect())
		if s.Dialect() == "sqlite" {
			q = `WITH RECURSIVE n(i) AS (SELECT $2 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $2 + $3) ` + q
		}
		if _, err := store.ExecForTest(ctx, s, q, fillBase.UnixMilli(), from, count); err != nil {
			t.Fatalf("fill ledger rows %d to %d: %v", from, from+count, err)
		}
	}
	fillKeys(t, s)
	if _, err := store.ExecForTest(ctx, s, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// fillKeys adds the accounts and keys of the synthetic ledger, which
// name the keys of its rows and give a key filter its account.
func fillKeys(t testing.TB, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	for a := range 10 {
		if _, err := store.ExecForTest(ctx, s, `INSERT INTO accounts (id, email, created_at) VALUES ($1, $2, 0)`,
			fmt.Sprintf("acct_%d", a), fmt.Sprintf("owner%d@example.com", a)); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 100 {
		if _, err := store.ExecForTest(ctx, s, `INSERT INTO api_keys (id, account_id, name, key_hash, hint, created_at)
			VALUES ($1, $2, $3, $4, 'sk-…', 0)`, fmt.Sprintf("key_%d", k), fmt.Sprintf("acct_%d", k%10),
			fmt.Sprintf("key %d", k), fmt.Sprintf("hash%d", k)); err != nil {
			t.Fatal(err)
		}
	}
}
