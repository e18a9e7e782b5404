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
