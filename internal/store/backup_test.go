package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestBackupWhileWriting takes a backup while usage is being written: it
// opens as a database at the current schema, holds a consistent
// snapshot (every record it holds is counted in its rollup, and no
// more) and at least the records written before it began.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, storetest.SQLiteURL(t))
	write := func(batch int) {
		recs := make([]meter.Record, 50)
		for i := range recs {
			recs[i] = usageRecord(batch*50+i, "acct_a", "key_a", "gpt-4o", "2026-11-20", 200)
			recs[i].ID = fmt.Sprintf("rec_%d_%d", batch, i)
		}
		if _, err := s.WriteUsage(ctx, recs); err != nil {
			t.Error(err)
		}
	}
	write(0)
	stop := make(chan struct{})
	var written atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for batch := 1; ; batch++ {
			select {
			case <-stop:
				return
			default:
				write(batch)
				written.Add(1)
			}
		}
	})
	for deadline := time.Now().Add(10 * time.Second); written.Load() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writer wrote nothing")
		}
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	err := s.Backup(ctx, path)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, %v; want mode 0600", fi.Mode(), err)
	}

	b, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := b.CountUsage(ctx, "acct_a")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.UsageSummary(ctx, store.UsageQuery{AccountID: "acct_a", By: "day"})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 || len(rows) != 1 || rows[0].Requests != n {
		t.Errorf("backup holds %d records and a rollup of %+v: want at least 50, all counted", n, rows)
	}

	// A second backup to the same file is refused; the first stays.
	if err := s.Backup(ctx, path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("backup over an existing file: %v, want fs.ErrExist", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("the first backup is gone: %v", err)
	}
}

// TestBackupRefusesPostgres points PostgreSQL users at pg_dump.
func TestBackupRefusesPostgres(t *testing.T) {
	s := storetest.Open(t, storetest.PostgresURL(t))
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := s.Backup(context.Background(), path); !errors.Is(err, store.ErrBackupPostgres) {
		t.Errorf("Backup on PostgreSQL: %v, want ErrBackupPostgres", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Backup on PostgreSQL left a file: %v", err)
	}
}
