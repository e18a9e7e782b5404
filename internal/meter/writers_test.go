package meter_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
)

// barrierSink holds each of its first two writes until both have begun.
type barrierSink struct {
	*sink
	both    chan struct{}
	arrived atomic.Int64
	alone   atomic.Bool // a write gave up waiting for the other
}

func (s *barrierSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	if s.arrived.Add(1) == 2 {
		close(s.both)
	}
	select {
	case <-s.both:
	case <-ctx.Done():
		s.alone.Store(true)
		return 0, ctx.Err()
	}
	return s.sink.WriteUsage(ctx, recs)
}

// With Writers 2, two batches are written at once, and every record
// once.
func TestWritersWriteBatchesAtOnce(t *testing.T) {
	s := &barrierSink{sink: newSink(), both: make(chan struct{})}
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, BatchSize: 10, Writers: 2, FlushInterval: time.Hour,
		WriteTimeout: 5 * time.Second, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 45 {
		m.Record(record(i))
	}
	stop := start(m)
	waitFor(t, "45 rows", func() bool { return s.count() == 45 })
	stop()
	if s.alone.Load() {
		t.Error("the first batch was written alone: the second did not start while it was under way")
	}
	if got := m.Stats(); got.Written != 45 || got.SinkFailures != 0 {
		t.Errorf("stats = %+v", got)
	}
	if files := journalFiles(t, dir); len(files) != 0 {
		t.Errorf("journal left after a clean stop: %v", files)
	}
}

// firstBatchSink fails every batch that holds record 0 while failing is
// set; other batches are written.
type firstBatchSink struct {
	*sink
	failing atomic.Bool
}

func (s *firstBatchSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	for _, r := range recs {
		if r.ID == record(0).ID && s.failing.Load() {
			return 0, errDown
		}
	}
	return s.sink.WriteUsage(ctx, recs)
}

// When the first batch of a round fails and the second is written, the
// first's records stay uncommitted in the journal (a crash then would
// replay them), the second is written again with it, harmlessly, and
// each record counts once as written.
func TestWritersFailedBatchStaysInJournal(t *testing.T) {
	s := &firstBatchSink{sink: newSink()}
	s.failing.Store(true)
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, BatchSize: 10, Writers: 2, FlushInterval: 5 * time.Millisecond,
		Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		m.Record(record(i))
	}
	stop := start(m)
	waitFor(t, "three failed rounds", func() bool { return m.Stats().SinkFailures >= 3 })
	if got := s.count(); got != 10 {
		t.Errorf("%d rows while the first batch fails, want the second batch's 10", got)
	}
	if recs, _ := m.Backlog(); recs < 10 {
		t.Errorf("journal backlog %d while the first batch of 10 fails: its records counted as committed", recs)
	}
	s.failing.Store(false)
	waitFor(t, "20 rows", func() bool { return s.count() == 20 })
	stop()
	if got := m.Stats(); got.Written != 20 || got.Lost != 0 {
		t.Errorf("stats = %+v, want 20 written", got)
	}
	if files := journalFiles(t, dir); len(files) != 0 {
		t.Errorf("journal left after a clean stop: %v", files)
	}
}

// secondBatchSink panics on its first write of a batch that holds
// record 10, the first of the second batch of 10; it counts the records
// of the writes that did not panic, duplicates included.
type secondBatchSink struct {
	*sink
	panicked atomic.Bool
	given    atomic.Int64
}

func (s *secondBatchSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	for _, r := range recs {
		if r.ID == record(10).ID && !s.panicked.Swap(true) {
			panic("sink bug")
		}
	}
	s.given.Add(int64(len(recs)))
	return s.sink.WriteUsage(ctx, recs)
}

// A panic in one of a round's batches, written on a goroutine of its
// own, fails that batch only, and the process lives on: the round's
// first batch, written before it, is not written again.
func TestWritersPanicFailsOneBatch(t *testing.T) {
	s := &secondBatchSink{sink: newSink()}
	m, err := meter.New(s, meter.Options{Dir: t.TempDir(), BatchSize: 10, Writers: 2,
		FlushInterval: 10 * time.Millisecond, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		m.Record(record(i))
	}
	stop := start(m)
	waitFor(t, "30 rows", func() bool { return s.count() == 30 })
	stop()
	if !s.panicked.Load() {
		t.Fatal("the sink did not panic")
	}
	if got := s.given.Load(); got != 30 {
		t.Errorf("the sink was given %d records for 30: a batch written beside the panic was failed with it", got)
	}
	if got := m.Stats(); got.Written != 30 || got.SinkFailures != 1 {
		t.Errorf("stats = %+v, want 30 written after one failure", got)
	}
}
