package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ExecForTest runs raw SQL, for tests that try what the API does not allow.
func ExecForTest(ctx context.Context, s *Store, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, q, args...)
}

// ExplainRequestsForTest returns the plan of the statement Requests runs
// for q, a line per step: SQLite's EXPLAIN QUERY PLAN details, or
// PostgreSQL's EXPLAIN text. On PostgreSQL, ordered is whether to plan
// with sorts, sequential and bitmap scans disabled, which shows whether
// an index can give the rows in order at all: the planner would rather
// sort the few rows a filter selects in a small table, and still sorts
// when nothing else can answer.
func ExplainRequestsForTest(ctx context.Context, s *Store, q RequestQuery, ordered bool) ([]string, error) {
	text, args := q.sql(q.limit() + 1)
	if s.postgres {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		if ordered {
			for _, set := range []string{"enable_sort", "enable_seqscan", "enable_bitmapscan"} {
				if _, err := tx.ExecContext(ctx, `SET LOCAL `+set+` = off`); err != nil {
					return nil, err
				}
			}
		}
		return queryRows(ctx, tx, scanString, `EXPLAIN `+text, args...)
	}
	rows, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (string, error) {
		var id, parent, unused int
		var detail string
		err := row.Scan(&id, &parent, &unused, &detail)
		return detail, err
	}, `EXPLAIN QUERY PLAN `+text, args...)
	if err != nil {
		return nil, fmt.Errorf("explain %s: %w", strings.TrimSpace(text), err)
	}
	return rows, nil
}
