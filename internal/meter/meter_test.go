package meter_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sink is an in-memory ledger that can be made to fail.
type sink struct {
	mu      sync.Mutex
	rows    map[string]meter.Record
	writes  int
	failing atomic.Bool
}

func newSink() *sink { return &sink{rows: map[string]meter.Record{}} }

var errDown = errors.New("database is down")

func (s *sink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	if s.failing.Load() {
		return 0, errDown
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	n := 0
	for _, r := range recs {
		if _, ok := s.rows[r.ID]; !ok {
			s.rows[r.ID] = r
			n++
		}
	}
	return n, nil
}

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func record(i int) *meter.Record {
	return &meter.Record{ID: fmt.Sprintf("usg_%06d", i), RequestID: "req", Time: time.Now(), AccountID: "acct_a",
		KeyID: "key_a", Endpoint: "chat.completions", Model: "m", PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7,
		Cost: usd.Amount(7_000_000), Status: 200}
}

// start runs m until the returned stop is called; stop waits for Run.
func start(m *meter.Meter) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func journalFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "seg-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestEveryRecordWrittenOnce(t *testing.T) {
	s := newSink()
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, BatchSize: 50, FlushInterval: 10 * time.Millisecond, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(m)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				m.Record(record(g*1000 + i))
			}
		})
	}
	wg.Wait()
	waitFor(t, "4000 rows", func() bool { return s.count() == 4000 })
	stop()
	if got := m.Stats(); got.Written != 4000 || got.Lost != 0 || got.Recorded != 4000 {
		t.Errorf("stats = %+v", got)
	}
	if files := journalFiles(t, dir); len(files) != 0 {
		t.Errorf("journal left after a clean stop: %v", files)
	}
}

func TestSinkOutageKeepsRecords(t *testing.T) {
	for _, tc := range []struct {
		name        string
		memoryLimit int
		queueSize   int
	}{
		{"in memory", 0, 0},
		{"past the memory bound", 100, 0},
		{"full queue", 100, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSink()
			dir := t.TempDir()
			m, err := meter.New(s, meter.Options{Dir: dir, BatchSize: 50, FlushInterval: 5 * time.Millisecond,
				MemoryLimit: tc.memoryLimit, QueueSize: tc.queueSize, SegmentBytes: 16 << 10, Log: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			stop := start(m)
			defer stop()
			for i := range 300 {
				m.Record(record(i))
			}
			waitFor(t, "300 rows", func() bool { return s.count() == 300 })
			waitFor(t, "no backlog", func() bool { n, _ := m.Backlog(); return n == 0 })
			s.failing.Store(true)
			for i := 300; i < 3000; i++ {
				m.Record(record(i))
			}
			time.Sleep(50 * time.Millisecond)
			if got := s.count(); got != 300 {
				t.Fatalf("rows while down = %d", got)
			}
			// Issue 17: the backlog metric says what waits in the journal.
			if n, size := m.Backlog(); n != 2700 || size <= 0 {
				t.Errorf("backlog while down: %d records, %d bytes; want 2700 records", n, size)
			}
			s.failing.Store(false)
			waitFor(t, "3000 rows", func() bool { return s.count() == 3000 })
			waitFor(t, "journal collected", func() bool { return len(journalFiles(t, dir)) <= 1 })
			waitFor(t, "backlog written", func() bool { n, _ := m.Backlog(); return n == 0 })
			if st := m.Stats(); st.Lost != 0 || (tc.memoryLimit > 0) != (st.Spilled > 0) {
				t.Errorf("stats = %+v", st)
			}
		})
	}
}

func TestRecoverAfterKill(t *testing.T) {
	dir := t.TempDir()
	s := newSink()
	// A process that journals 1200 records and dies before writing any.
	dead, err := meter.New(s, meter.Options{Dir: dir, SegmentBytes: 64 << 10, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1200 {
		dead.Record(record(i))
	}
	dead.Abandon()
	// A torn last line, as a write cut by the kill would leave.
	files := journalFiles(t, dir)
	if len(files) < 2 {
		t.Fatalf("expected several segments, got %v", files)
	}
	f, err := os.OpenFile(files[len(files)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"usg_torn","request_id":"re`)
	f.Close()

	// A live process's own segment must not be taken.
	live, err := meter.New(newSink(), meter.Options{Dir: dir, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	live.Record(record(99999))

	next, err := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	n, err := next.Recover(context.Background())
	if err != nil || n != 1200 || s.count() != 1200 {
		t.Fatalf("Recover = %d, %v; rows %d; want 1200", n, err, s.count())
	}
	// Recovering again finds nothing: the files are gone.
	if n, err := next.Recover(context.Background()); n != 0 || err != nil {
		t.Errorf("second Recover = %d, %v", n, err)
	}
	if got := len(journalFiles(t, dir)); got != 2 {
		t.Errorf("%d journal files left, want the two live processes' segments", got)
	}
	start(live)()
	start(next)()
}

func TestRecoverIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	s := newSink()
	dead, err := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		dead.Record(record(i))
	}
	// Written before the crash, and journaled too: no double count.
	s.WriteUsage(context.Background(), []meter.Record{*record(0), *record(1)})
	dead.Abandon()
	next, _ := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if n, err := next.Recover(context.Background()); n != 8 || err != nil || s.count() != 10 {
		t.Errorf("Recover = %d, %v; rows %d", n, err, s.count())
	}
	start(next)()
}

func TestDrainOnShutdown(t *testing.T) {
	s := newSink()
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, FlushInterval: time.Hour, BatchSize: 10000, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(m)
	for i := range 777 {
		m.Record(record(i))
	}
	stop()
	if s.count() != 777 {
		t.Errorf("rows after shutdown = %d, want 777", s.count())
	}
}

func TestShutdownWhileDownLeavesJournal(t *testing.T) {
	s := newSink()
	s.failing.Store(true)
	dir := t.TempDir()
	m, err := meter.New(s, meter.Options{Dir: dir, FlushInterval: time.Hour, DrainTimeout: 50 * time.Millisecond, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(m)
	for i := range 50 {
		m.Record(record(i))
	}
	stop()
	// No tick ran (an hour's interval): the stop itself must leave the
	// lines on stable storage, not only in the page cache.
	if got := m.Syncs(); got == 0 {
		t.Error("stopped with records left in the journal, none of them synced")
	}
	s.failing.Store(false)
	next, _ := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if n, err := next.Recover(context.Background()); n != 50 || err != nil {
		t.Errorf("Recover = %d, %v", n, err)
	}
	start(next)()
}

type spend struct {
	mu  sync.Mutex
	sum map[string]usd.Amount
}

func (s *spend) AddSpend(account, key, period string, cost usd.Amount) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sum[account+"/"+key+"/"+period] += cost
}

// Each record's spend counts in its own UTC month, also when records
// of several months come in turn (the meter keeps the last month's name).
func TestSpendToldAtRecord(t *testing.T) {
	sp := &spend{sum: map[string]usd.Amount{}}
	m, err := meter.New(newSink(), meter.Options{Dir: t.TempDir(), Spend: sp, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	east, west := time.FixedZone("E", 5*3600), time.FixedZone("W", -3600)
	times := []time.Time{
		time.Date(2026, 11, 30, 23, 59, 59, 0, west), // December in UTC
		time.Date(2026, 12, 1, 2, 0, 0, 0, east),     // November in UTC
		time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC),
		time.Date(2027, 11, 15, 12, 0, 0, 0, time.UTC), // same month, next year
		time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
	}
	want := map[string]usd.Amount{}
	for i, tm := range times {
		r := record(i)
		r.Time, r.Cost = tm, usd.Amount(1+i)
		m.Record(r)
		want["acct_a/key_a/"+tm.UTC().Format("2006-01")] += r.Cost
	}
	sp.mu.Lock()
	if diff := cmp.Diff(want, sp.sum); diff != "" {
		t.Errorf("spend by period (-want +got)\n%s", diff)
	}
	sp.mu.Unlock()
	start(m)()
}

func TestNewNeedsDir(t *testing.T) {
	if _, err := meter.New(newSink(), meter.Options{}); err == nil {
		t.Error("New without a journal directory succeeded")
	}
}

// Concurrent records share journal writes, but each Record returns only
// once its own line is in a file, across segment rotations, and a process
// killed then loses none.
func TestConcurrentRecordsJournaledBeforeReturn(t *testing.T) {
	dir := t.TempDir()
	dead, err := meter.New(newSink(), meter.Options{Dir: dir, SegmentBytes: 16 << 10, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	inJournal := func(id string) bool {
		for _, name := range journalFiles(t, dir) {
			b, err := os.ReadFile(name)
			if err == nil && strings.Contains(string(b), `"id":"`+id+`"`) {
				return true
			}
		}
		return false
	}
	var wg sync.WaitGroup
	var missing atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				r := record(g*1000 + i)
				if i%2 == 0 {
					dead.Progress(r)
				}
				dead.Record(r)
				if !inJournal(r.ID) {
					missing.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := missing.Load(); n > 0 {
		t.Errorf("%d records not in the journal when Record returned", n)
	}
	dead.Abandon()
	if files := journalFiles(t, dir); len(files) < 2 {
		t.Fatalf("expected several segments, got %v", files)
	}
	s := newSink()
	next, err := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := next.Recover(context.Background()); err != nil || n != 320 || s.count() != 320 {
		t.Fatalf("Recover = %d, %v; rows %d; want 320", n, err, s.count())
	}
	start(next)()
}

// The writer is woken by a full batch, not only by its ticker: of 25
// records in batches of 10, at most 9 wait for the tick.
func TestFullBatchWakesWriter(t *testing.T) {
	s := newSink()
	m, err := meter.New(s, meter.Options{Dir: t.TempDir(), BatchSize: 10, FlushInterval: time.Hour, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(m)
	defer stop()
	for i := range 25 {
		m.Record(record(i))
	}
	waitFor(t, "the full batches written before the first tick", func() bool { return s.count() >= 16 })
}

// panicSink is a sink whose second write panics; it counts the records
// it is given, duplicates included.
type panicSink struct {
	*sink
	calls, given atomic.Int64
}

func (s *panicSink) WriteUsage(ctx context.Context, recs []meter.Record) (int, error) {
	if s.calls.Add(1) == 2 {
		panic("sink bug")
	}
	s.given.Add(int64(len(recs)))
	return s.sink.WriteUsage(ctx, recs)
}

// logLines is a slog handler that keeps each record's message, and
// whether it has a stack attribute.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (h *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (h *logLines) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logLines) WithGroup(string) slog.Handler            { return h }

func (h *logLines) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "stack" {
			line += " (with a stack)"
		}
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lines = append(h.lines, line)
	return nil
}

func (h *logLines) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.lines)
}

// A panic in one batch of a flush leaves the batches written before it
// written: they are not sent again, nor counted twice as committed in
// their journal segment (which could then be deleted while its later
// records are only in memory). It is logged as a panic, with its stack,
// not as the database being unavailable.
func TestPanicMidFlushKeepsWrittenBatches(t *testing.T) {
	s, logs := &panicSink{sink: newSink()}, &logLines{}
	m, err := meter.New(s, meter.Options{Dir: t.TempDir(), BatchSize: 10, FlushInterval: 10 * time.Millisecond,
		Log: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		m.Record(record(i))
	}
	stop := start(m)
	waitFor(t, "30 rows", func() bool { return s.count() == 30 })
	stop()
	if got := s.given.Load(); got != 30 {
		t.Errorf("the sink was given %d records for 30 (the batch written before the panic sent again)", got)
	}
	want := []string{
		"usage writer panic (with a stack)",
		"usage writer: sink panicked; records are kept and retried",
		"usage writer: batches are written again",
	}
	if diff := cmp.Diff(want, logs.all()); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}
