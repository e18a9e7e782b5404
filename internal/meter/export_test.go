package meter

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
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	var n []int64
	for _, s := range m.j.sealed {
		n = append(n, s.syncs)
	}
	return append(n, m.j.cur.syncs)
}
