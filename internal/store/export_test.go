package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// ExecForTest runs raw SQL, for tests that try what the API does not allow.
func ExecForTest(ctx context.Context, s *Store, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, q, args...)
}

// ExplainRequestsForTest returns the plans of the statements Requests
// runs for q, a line per step: SQLite's EXPLAIN QUERY PLAN details, or
// PostgreSQL's EXPLAIN text. The plans of the queries that list the
// accounts of a read per account are in lookups; those of the other
// reads (one, two, or none) in reads; and those of the accounts' shares
// of a read per account, one per account listed, in shares, each as it
// is read first and, when floor is not zero, again as it is read once a
// page of rows newer than floor is merged. On PostgreSQL, ordered is
// whether to plan with sorts, sequential and bitmap scans disabled,
// which shows whether an index can give the rows in order at all: the
// planner would rather sort the few rows a filter selects in a small
// table, and still sorts when nothing else can answer.
func ExplainRequestsForTest(ctx context.Context, s *Store, q RequestQuery, floor Cursor, ordered bool) (lookups, reads, shares [][]string, err error) {
	for _, r := range q.reads() {
		if r.perAccount() {
			plan, err := s.explain(ctx, r.accounts(), ordered)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("explain the accounts of %+v: %w", r, err)
			}
			lookups = append(lookups, plan)
		}
	}
	parts, err := s.parts(ctx, q)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, p := range parts {
		floors := []Cursor{{}}
		if p.share && !floor.IsZero() {
			floors = append(floors, floor)
		}
		for _, f := range floors {
			st := p.sql(q.limit()+1, f)
			plan, err := s.explain(ctx, st, ordered)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("explain %s: %w", strings.TrimSpace(st.text), err)
			}
			if p.share {
				shares = append(shares, plan)
			} else {
				reads = append(reads, plan)
			}
		}
	}
	return lookups, reads, shares, nil
}

// PerAccountForTest reports whether Requests reads rows of q one account
// at a time (read.perAccount).
func PerAccountForTest(q RequestQuery) bool {
	return slices.ContainsFunc(q.reads(), read.perAccount)
}

func (s *Store) explain(ctx context.Context, st statement, ordered bool) ([]string, error) {
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
		return queryRows(ctx, tx, scanString, `EXPLAIN `+st.text, st.args...)
	}
	return queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (string, error) {
		var id, parent, unused int
		var detail string
		err := row.Scan(&id, &parent, &unused, &detail)
		return detail, err
	}, `EXPLAIN QUERY PLAN `+st.text, st.args...)
}

// IndexesForTest returns the name and CREATE INDEX statement of every
// index of table except its primary key, as the database states them.
func IndexesForTest(ctx context.Context, s *Store, table string) (map[string]string, error) {
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = $1 AND sql IS NOT NULL`
	if s.postgres {
		q = `SELECT i.indexname, i.indexdef FROM pg_indexes i
			JOIN pg_index x ON x.indexrelid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass
			WHERE i.schemaname = current_schema() AND i.tablename = $1 AND NOT x.indisprimary`
	}
	type pair struct{ name, def string }
	rows, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (pair, error) {
		var p pair
		err := row.Scan(&p.name, &p.def)
		return p, err
	}, q, table)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range rows {
		out[p.name] = p.def
	}
	return out, nil
}

// RequestReadsForTest reads the first page of q as Requests does (q's
// key must come with its account) and returns its rows and how many
// reads it ran after the lookup of accounts: one a read, or one an
// account read of a read per account.
func RequestReadsForTest(ctx context.Context, s *Store, q RequestQuery) (rows []string, reads int, err error) {
	recs, reads, err := s.readRequests(ctx, q, q.limit()+1)
	for _, r := range recs[:min(len(recs), q.limit())] {
		rows = append(rows, r.ID)
	}
	return rows, reads, err
}

// MergeNewestForTest merges reads, each newest first, as readRequests
// merges its reads, and returns the newest limit records.
func MergeNewestForTest(reads [][]meter.Record, limit int) []meter.Record {
	m := merger{limit: limit}
	for _, recs := range reads {
		m.add(recs)
	}
	return m.out
}
