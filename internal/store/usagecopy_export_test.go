package store

import "context"

// UsageStagedForTest returns how many PostgreSQL batches met a stored ID
// and took the staging path.
func UsageStagedForTest(s *Store) int64 { return s.usageStaged.Load() }

// QueryForTest runs a raw query and calls scan with each row.
func QueryForTest(ctx context.Context, s *Store, scan func(row interface{ Scan(...any) error }) error,
	q string, args ...any) error {
	_, err := queryRows(ctx, s.db, func(row interface{ Scan(...any) error }) (struct{}, error) {
		return struct{}{}, scan(row)
	}, q, args...)
	return err
}

// CopyColumnTypesForTest returns the PostgreSQL type the COPY encoder
// gives each ledger column, by name.
func CopyColumnTypesForTest() map[string]uint32 { return copyColumnTypes }
