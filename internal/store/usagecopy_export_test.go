package store

// UsageStagedForTest returns how many PostgreSQL batches met a stored ID
// and took the staging path.
func UsageStagedForTest(s *Store) int64 { return s.usageStaged.Load() }
