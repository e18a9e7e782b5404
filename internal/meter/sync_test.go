package meter_test

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// The writer's tick syncs the journal to stable storage: every line
// written so far, in whichever segment it is. A segment sealed since the
// last tick is synced too, or a power loss could take the records its
// last lines hold, which the meter had taken. A tick with no line written
// since the last sync makes no fsync, so that an idle gateway makes none
// (it made ten a second), and a segment whose lines were all synced is
// not synced again. The tick after a segment was created syncs the
// directory once too, or a power loss could take the file's entry and the
// synced lines with it; the segment is created on the request path, which
// must not wait for that fsync.
func TestSyncCoversLinesWritten(t *testing.T) {
	rec := func(ids ...int) func(*meter.Meter) {
		return func(m *meter.Meter) {
			for _, i := range ids {
				m.Record(record(i))
			}
		}
	}
	type step struct {
		name  string
		write func(*meter.Meter)
		want  []int64 // fsyncs of each segment, the oldest first
		dirs  int64   // fsyncs of the directory so far
	}
	for _, tc := range []struct {
		name         string
		segmentBytes int64
		steps        []step
	}{
		{"one segment", 0, []step{
			{"nothing written", nil, []int64{0}, 0},
			{"a record", rec(1), []int64{1}, 1},
			{"idle", nil, []int64{1}, 1},
			{"idle again", nil, []int64{1}, 1},
			{"a progress line", func(m *meter.Meter) { m.Progress(progress(2, 1)) }, []int64{2}, 1},
			{"two records", rec(3, 4), []int64{3}, 1},
			{"idle after", nil, []int64{3}, 1},
		}},
		// One byte a segment: every record after the first starts a new one.
		{"a segment a record", 1, []step{
			{"a record", rec(1), []int64{1}, 1},
			{"idle", nil, []int64{1}, 1},
			{"a record in a new segment", rec(2), []int64{1, 1}, 2},
			{"two rotations between ticks", rec(3, 4), []int64{1, 1, 1, 1}, 3},
			{"idle after", nil, []int64{1, 1, 1, 1}, 3},
			{"a progress line", func(m *meter.Meter) { m.Progress(progress(5, 1)) }, []int64{1, 1, 1, 1, 1}, 4},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := meter.New(newSink(), meter.Options{Dir: t.TempDir(), SegmentBytes: tc.segmentBytes,
				FlushInterval: time.Hour, Log: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Abandon()
			for _, st := range tc.steps {
				if st.write != nil {
					st.write(m)
				}
				if err := m.SyncJournal(); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				if diff := cmp.Diff(st.want, m.SegmentSyncs()); diff != "" {
					t.Errorf("%s: fsyncs per segment (-want +got):\n%s", st.name, diff)
				}
				var total int64
				for _, n := range st.want {
					total += n
				}
				if got := m.Syncs(); got != total {
					t.Errorf("%s: %d fsyncs in all, want %d", st.name, got, total)
				}
				if got := m.DirSyncs(); got != st.dirs {
					t.Errorf("%s: %d fsyncs of the directory, want %d", st.name, got, st.dirs)
				}
			}
		})
	}
}

// A segment sealed since the last tick may have its records all written
// to the database and be deleted, its file closed, before the tick: the
// tick does not sync it, and reports no failure.
func TestSyncSkipsRemovedSegments(t *testing.T) {
	s := newSink()
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, SegmentBytes: 1, BatchSize: 1, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(m)
	defer stop()
	m.Record(record(1))
	waitFor(t, "the first row", func() bool { return s.count() == 1 })
	m.Record(record(2)) // seals the first segment, which is then deleted
	waitFor(t, "the first segment deleted", func() bool { return s.count() == 2 && len(journalFiles(t, dir)) == 1 })
	if err := m.SyncJournal(); err != nil {
		t.Fatalf("sync after a sealed segment was deleted: %v", err)
	}
	if diff := cmp.Diff([]int64{1}, m.SegmentSyncs()); diff != "" {
		t.Errorf("fsyncs per segment (-want +got):\n%s", diff)
	}
	if got := m.Syncs(); got != 1 {
		t.Errorf("%d fsyncs in all, want 1: the current segment's only, not the deleted one's", got)
	}
}

// A segment's file may be closed while the tick syncs it, the tick
// having taken it before: its fsync fails, and that is no failure of
// the journal.
func TestSyncOfClosedSegmentIsNoFailure(t *testing.T) {
	m, err := meter.New(newSink(), meter.Options{Dir: t.TempDir(), SegmentBytes: 1, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	m.Record(record(1))
	m.Record(record(2)) // seals the first segment, its line not synced
	m.Abandon()
	if err := m.SyncJournal(); err != nil {
		t.Errorf("sync of closed segments: %v", err)
	}
}

// On Linux a failed fsync may drop the file's dirty pages, and the next
// fsync then succeeds: lines the tick meant to sync may be lost while the
// journal counts them synced. A failed fsync is reported and marks the
// segment for replay, so that its records are read back from the file
// and written again; the segments whose fsync succeeded are not marked.
func TestFailedSyncMarksSegmentForReplay(t *testing.T) {
	dir := t.TempDir()
	s := newSink()
	m, err := meter.New(s, meter.Options{Dir: dir, SegmentBytes: 1, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	m.Record(record(1))
	m.Record(record(2)) // in a second segment
	bad := journalFiles(t, dir)[0]
	fault := errors.New("input/output error")
	m.SetSyncFile(func(f *os.File) error {
		if f.Name() == bad {
			return fault
		}
		return f.Sync()
	})
	if err := m.SyncJournal(); !errors.Is(err, fault) {
		t.Fatalf("sync with a failing fsync: %v, want %v", err, fault)
	}
	if diff := cmp.Diff([]bool{true, false}, m.SegmentReplays()); diff != "" {
		t.Errorf("segments marked for replay (-want +got):\n%s", diff)
	}

	// The writer reads the segment back: its record is written twice,
	// from memory and from the file, and the file is then deleted.
	m.SetSyncFile((*os.File).Sync)
	stop := start(m)
	stop()
	if got := m.Stats().Written; got != 2 {
		t.Errorf("%d rows written, want 2", got)
	}
	s.mu.Lock()
	writes := s.writes
	s.mu.Unlock()
	if writes < 2 {
		t.Errorf("%d writes to the database, want the records' and the replay's", writes)
	}
	if files := journalFiles(t, dir); len(files) != 0 {
		t.Errorf("journal files left after a clean stop: %v", files)
	}
}

// A failed fsync of the directory is reported, and the next tick syncs
// it again, with the lines it could not count as synced.
func TestFailedDirectorySyncIsRetried(t *testing.T) {
	dir := t.TempDir()
	m, err := meter.New(newSink(), meter.Options{Dir: dir, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Abandon()
	m.Record(record(1))
	fault := errors.New("input/output error")
	m.SetSyncFile(func(f *os.File) error {
		if f.Name() == dir {
			return fault
		}
		return f.Sync()
	})
	if err := m.SyncJournal(); !errors.Is(err, fault) {
		t.Fatalf("sync with a failing fsync of the directory: %v, want %v", err, fault)
	}
	m.SetSyncFile((*os.File).Sync)
	if err := m.SyncJournal(); err != nil {
		t.Fatalf("sync after the failure: %v", err)
	}
	if got := m.DirSyncs(); got != 2 {
		t.Errorf("%d fsyncs of the directory, want 2: the failed one and its retry", got)
	}
	// The segment's line was synced the first time: the retry is the
	// directory's alone.
	if diff := cmp.Diff([]int64{1}, m.SegmentSyncs()); diff != "" {
		t.Errorf("fsyncs per segment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false}, m.SegmentReplays()); diff != "" {
		t.Errorf("segments marked for replay (-want +got):\n%s", diff)
	}
}

// A file system that refuses an fsync of a directory (EINVAL) is told
// once; the directory is not tried again, and an idle tick makes no
// fsync, rather than one of every segment and an error ten times a
// second.
func TestUnsupportedDirectorySyncIsNotRetried(t *testing.T) {
	dir := t.TempDir()
	m, err := meter.New(newSink(), meter.Options{Dir: dir, SegmentBytes: 1, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Abandon()
	m.SetSyncFile(func(f *os.File) error {
		if f.Name() == dir {
			return &os.PathError{Op: "sync", Path: dir, Err: syscall.EINVAL}
		}
		return f.Sync()
	})
	m.Record(record(1))
	if err := m.SyncJournal(); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("first sync: %v, want EINVAL told once", err)
	}
	m.Record(record(2)) // a new segment: its entry would want the directory synced
	for i := range 3 {
		if err := m.SyncJournal(); err != nil {
			t.Fatalf("sync %d after EINVAL: %v", i, err)
		}
	}
	if got := m.DirSyncs(); got != 1 {
		t.Errorf("%d fsyncs of the directory, want 1", got)
	}
	if diff := cmp.Diff([]int64{1, 1}, m.SegmentSyncs()); diff != "" {
		t.Errorf("fsyncs per segment (-want +got):\n%s", diff)
	}
}
