package store

import (
	"context"
	"fmt"
	"strings"
)

// HealthSQLForTest returns the statements of RequestsPerHour and of
// LatencyPercentiles by model for q, and their arguments.
func HealthSQLForTest(s *Store, q HealthQuery) (perHour, latency string, args []any) {
	cond, args := q.where(s.postgres)
	return perHourSQL(cond), latencySQL("model", cond), args
}

// ExplainForTest returns the plan the database makes for query, one line
// a row.
func ExplainForTest(ctx context.Context, s *Store, query string, args ...any) (string, error) {
	explain := "EXPLAIN QUERY PLAN "
	if s.postgres {
		explain = "EXPLAIN "
	}
	rows, err := s.db.QueryContext(ctx, explain+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		lines = append(lines, fmt.Sprint(vals...))
	}
	return strings.Join(lines, "\n"), rows.Err()
}
