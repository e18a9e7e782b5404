package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// PurgeUsage deletes at most limit usage records made before before, the
// oldest first, and returns how many it deleted: one short statement
// that finds them through the time index (usage_records_time) and deletes
// them by row (SQLite's rowid) or primary key (PostgreSQL), so that a
// large backlog goes in batches that never hold the table for long. The
// daily rollup (usage_daily) is not touched: totals, budgets and alerts
// stay whole.
func (s *Store) PurgeUsage(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, errors.New("purge usage: the batch size must be positive")
	}
	key := "rowid"
	if s.postgres {
		key = "id"
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM usage_records WHERE `+key+` IN
		(SELECT `+key+` FROM usage_records WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, millis(before), limit)
	if err != nil {
		return 0, fmt.Errorf("purge usage: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge usage: %w", err)
	}
	return int(n), nil
}
