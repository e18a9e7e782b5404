package meter_test

import (
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
// not synced again.
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
	}
	for _, tc := range []struct {
		name         string
		segmentBytes int64
		steps        []step
	}{
		{"one segment", 0, []step{
			{"nothing written", nil, []int64{0}},
			{"a record", rec(1), []int64{1}},
			{"idle", nil, []int64{1}},
			{"idle again", nil, []int64{1}},
			{"a progress line", func(m *meter.Meter) { m.Progress(progress(2, 1)) }, []int64{2}},
			{"two records", rec(3, 4), []int64{3}},
			{"idle after", nil, []int64{3}},
		}},
		// One byte a segment: every record after the first starts a new one.
		{"a segment a record", 1, []step{
			{"a record", rec(1), []int64{1}},
			{"idle", nil, []int64{1}},
			{"a record in a new segment", rec(2), []int64{1, 1}},
			{"two rotations between ticks", rec(3, 4), []int64{1, 1, 1, 1}},
			{"idle after", nil, []int64{1, 1, 1, 1}},
			{"a progress line", func(m *meter.Meter) { m.Progress(progress(5, 1)) }, []int64{1, 1, 1, 1, 1}},
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
