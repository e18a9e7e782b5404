package meter

import "os"

// Abandon closes the journal's files without deleting them, as a process
// killed with SIGKILL would leave them.
func (m *Meter) Abandon() {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	m.j.cur.closeFile()
	for _, s := range m.j.sealed {
		s.closeFile()
	}
}

// Syncs returns how many times the journal was synced to stable storage.
func (m *Meter) Syncs() int64 {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	return m.j.syncs
}

// SyncJournal syncs the journal as the writer's tick does.
func (m *Meter) SyncJournal() error { return m.j.sync() }

// SegmentSyncs returns how many times each segment of the journal was
// synced, the oldest first and the current one last.
func (m *Meter) SegmentSyncs() []int64 {
	return perSegment(m, func(s *segment) int64 { return s.syncs })
}

// DirSyncs returns how many times the journal's directory was synced.
func (m *Meter) DirSyncs() int64 {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	return m.j.dirSyncs
}

// SetSyncFile replaces the fsync of the journal's files and directory.
// Call it before the meter runs.
func (m *Meter) SetSyncFile(sync func(*os.File) error) { m.j.syncFile = sync }

// SegmentReplays returns whether each segment of the journal is marked
// to be read back, the oldest first and the current one last.
func (m *Meter) SegmentReplays() []bool {
	return perSegment(m, func(s *segment) bool { return s.replay })
}

// perSegment returns f of each segment of the journal, the oldest first
// and the current one last.
func perSegment[T any](m *Meter, f func(*segment) T) []T {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	var out []T
	for _, s := range m.j.sealed {
		out = append(out, f(s))
	}
	return append(out, f(m.j.cur))
}
