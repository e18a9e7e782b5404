package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupWhileServing takes `switchyard backup` of the database of a
// running server that is answering (and metering) requests: the copy
// opens, at the current schema, with the records written before it; a
// second backup to the same file is refused; PostgreSQL is refused.
func TestBackupWhileServing(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, dir, "", "--dev")
	out := s.stdout(t)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	const body = `{"model":"mock-chat","messages":[{"role":"user","content":"hello there"}]}`
	stop := make(chan struct{})
	var answered atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if resp, raw := chat(t, http.DefaultClient, s.URL, key, body); resp == nil || resp.StatusCode != 200 {
				t.Errorf("chat: %v %s", resp, raw)
				return
			}
			answered.Add(1)
		}
	})
	db := filepath.Join(dir, "switchyard.db")
	for deadline := time.Now().Add(20 * time.Second); countUsage(t, db) < 20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20s, %d requests answered and %d recorded", answered.Load(), countUsage(t, db))
		}
	}
	backup := filepath.Join(t.TempDir(), "copy.db")
	got := run(t, dir, "", "", "backup", "--to", backup)
	close(stop)
	wg.Wait()
	if !strings.Contains(got, "backed up") {
		t.Errorf("backup printed %q", got)
	}
	if n := countUsage(t, backup); n < 20 {
		t.Errorf("the backup holds %d usage records, want at least 20", n)
	}
	st := openStore(t, backup)
	defer st.Close()
	if err := st.CheckSchema(t.Context()); err != nil {
		t.Errorf("the backup's schema: %v", err)
	}

	msg, code := execStatus(t, dir, "", "backup", "--to", backup)
	if code != 1 || !strings.Contains(msg, "exists") {
		t.Errorf("backup over a file: exit %d, %q", code, msg)
	}
	msg, code = execStatus(t, dir, "postgres://nobody@127.0.0.1:1/none", "backup", "--to", filepath.Join(dir, "pg.db"))
	if code != 1 || !strings.Contains(msg, "pg_dump") {
		t.Errorf("backup of PostgreSQL: exit %d, %q", code, msg)
	}
	msg, code = execStatus(t, dir, "", "backup")
	if code != 2 || !strings.Contains(msg, "--to is required") {
		t.Errorf("backup without --to: exit %d, %q", code, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "pg.db")); err == nil {
		t.Error("the refused backup left a file")
	}
}
