package meter

// Abandon closes the journal's files without deleting them, as a process
// killed with SIGKILL would leave them.
func (m *Meter) Abandon() {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	m.j.cur.f.Close()
	for _, s := range m.j.sealed {
		s.f.Close()
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
