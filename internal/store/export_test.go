package store

import (
	"context"
	"database/sql"
)

// ExecForTest runs raw SQL, for tests that try what the API does not allow.
func ExecForTest(ctx context.Context, s *Store, q string) (sql.Result, error) {
	return s.db.ExecContext(ctx, q)
}
