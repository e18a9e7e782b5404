package meter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/switchyard-gw/switchyard/internal/usd"
)

// Options configure a Meter. Zero values take the defaults.
type Options struct {
	// Dir is the journal directory. Required.
	Dir string
	// QueueSize bounds the records waiting for the writer. Default 65536.
	QueueSize int
	// BatchSize is the most records written in one transaction. Default 500.
	BatchSize int
	// Writers is how many batches are written at once when that many are
	// pending, each by its own WriteUsage call (on PostgreSQL, its own
	// connection and transaction), so that one batch's rows are copied
	// while another's commit waits on the disk, and the database uses
	// more than one core. The sink must take concurrent writes. Default
	// 1: a batch at a time, as SQLite, which has a single writer, needs.
	Writers int
	// FlushInterval is the longest a record waits for a batch. Default 100ms.
	FlushInterval time.Duration
	// MemoryLimit is how many records the writer holds in memory while the
	// database fails; beyond it they are read back from the journal when
	// the database returns. Default 100000.
	MemoryLimit int
	// SegmentBytes is the journal segment size at which a new one starts.
	// Default 4 MiB.
	SegmentBytes int64
	// WriteTimeout bounds one batch write. Default 10s.
	WriteTimeout time.Duration
	// DrainTimeout bounds the final writes at shutdown; what is not written
	// by then stays in the journal for the next start. Default 10s.
	DrainTimeout time.Duration
	// Spend, when set, is told the cost of every record as it is produced.
	Spend Spender
	Log   *slog.Logger
}

// Spender keeps month-to-date spend; AddSpend must not block.
type Spender interface {
	AddSpend(accountID, keyID, period string, cost usd.Amount)
}

func (o *Options) defaults() {
	setDefault(&o.QueueSize, 65536)
	setDefault(&o.BatchSize, 500)
	setDefault(&o.Writers, 1)
	setDefault(&o.FlushInterval, 100*time.Millisecond)
	setDefault(&o.MemoryLimit, 100000)
	setDefault(&o.SegmentBytes, 4<<20)
	setDefault(&o.WriteTimeout, 10*time.Second)
	setDefault(&o.DrainTimeout, 10*time.Second)
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

func setDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// item is a queued record and the journal segment that holds it. The
// record is held by pointer: a full queue costs 16 bytes a slot, not a
// record's few hundred.
type item struct {
	rec *Record
	seg *segment // nil when the journal write failed
}

// Meter takes usage records from the request path and writes them to a
// Sink. Record never waits for the database: it appends the record to the
// journal and queues it; Run writes batches. The queue is a slice under
// the journal's lock, which Record holds anyway, and the writer is woken
// only when it holds a batch, or by its ticker: not once per record.
type Meter struct {
	sink  Sink
	opt   Options
	j     *journal
	queue []item        // guarded by j.mu: records waiting for the writer
	full  chan struct{} // capacity 1: the queue holds a batch

	recorded   atomic.Int64 // records produced
	written    atomic.Int64 // records newly inserted by this meter
	spilled    atomic.Int64 // records kept only in the journal for a while
	lost       atomic.Int64 // records neither journaled nor queued
	journalErr atomic.Int64 // failed journal writes
	failures   atomic.Int64 // failed batch writes
	down       atomic.Bool  // the sink is failing

	periods Periods // names the months of the records told to Spend
}

// Stats are the meter's counters.
type Stats struct {
	Recorded, Written, Spilled, Lost, JournalErrors, SinkFailures int64
	Queued                                                        int
	SinkDown                                                      bool
}

// New opens a journal segment in opt.Dir and returns a Meter writing to
// sink. Call Recover before serving and Run to write.
func New(sink Sink, opt Options) (*Meter, error) {
	if opt.Dir == "" {
		return nil, errors.New("meter: a journal directory is required")
	}
	opt.defaults()
	j, err := openJournal(opt.Dir, opt.SegmentBytes)
	if err != nil {
		return nil, err
	}
	return &Meter{sink: sink, opt: opt, j: j, full: make(chan struct{}, 1)}, nil
}

// Stats returns the counters.
func (m *Meter) Stats() Stats {
	return Stats{Recorded: m.recorded.Load(), Written: m.written.Load(), Spilled: m.spilled.Load(),
		Lost: m.lost.Load(), JournalErrors: m.journalErr.Load(), SinkFailures: m.failures.Load(), Queued: m.queued(), SinkDown: m.down.Load()}
}

// queued returns how many records wait for the writer.
func (m *Meter) queued() int {
	m.j.mu.Lock()
	defer m.j.mu.Unlock()
	return len(m.queue)
}

// Backlog returns how many journaled records are not yet known to be in
// the database, and the journal's size in bytes: what a restart would
// read back, at most.
func (m *Meter) Backlog() (records, bytes int64) { return m.j.backlog() }

// Record journals r and queues it for the database; r must not be changed
// afterwards. It never waits for
// the database; a full queue leaves the record in the journal only, to be
// read back. Only when the journal cannot be written and the queue is
// full is a record lost, and that is logged and counted.
func (m *Meter) Record(r *Record) {
	m.recorded.Add(1)
	if m.opt.Spend != nil && r.Cost > 0 {
		m.opt.Spend.AddSpend(r.AccountID, r.KeyID, m.periods.Of(r.Time.UTC()), r.Cost)
	}
	m.j.mu.Lock()
	seg, err := m.j.appendLocked(r)
	queued := len(m.queue) < m.opt.QueueSize
	if queued {
		m.queue = append(m.queue, item{rec: r, seg: seg})
		if len(m.queue) >= m.opt.BatchSize {
			select {
			case m.full <- struct{}{}:
			default:
			}
		}
	} else if seg != nil {
		m.j.markReplayLocked(seg)
	}
	m.j.mu.Unlock()
	if err != nil {
		if m.journalErr.Add(1)%1000 == 1 {
			m.opt.Log.Error("usage journal write failed", "err", err, "failures", m.journalErr.Load())
		}
	}
	switch {
	case !queued && seg == nil:
		m.lost.Add(1)
		m.opt.Log.Error("usage record lost: journal failed and queue full", "id", r.ID, "request_id", r.RequestID)
	case !queued:
		m.spilled.Add(1)
	}
}

// Progress journals r, the record a stream still under way would have
// if it ended now (see the api package), without queueing it: if the
// process dies before the stream's own record is journaled, Recover
// writes r instead. Call it when the stream's first chunk is sent and then
// at an interval; the record given to Record supersedes it. r is not kept.
func (m *Meter) Progress(r *Record) {
	m.j.mu.Lock()
	err := m.j.progressLocked(r)
	m.j.mu.Unlock()
	if err != nil && m.journalErr.Add(1)%1000 == 1 {
		m.opt.Log.Error("usage journal write failed", "err", err, "failures", m.journalErr.Load())
	}
}

// Recover writes the records of journal files left by processes that
// ended before their records reached the database, and deletes the files.
// A stream that was under way when its process died has no record there,
// only progress lines: its latest one is written as its record, after all
// the records (so that a record, when there is one, wins). Run it before
// serving. It returns how many records were new.
func (m *Meter) Recover(ctx context.Context) (int, error) {
	files, err := orphans(m.opt.Dir)
	if err != nil {
		return 0, fmt.Errorf("usage journal: %w", err)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	total := 0
	open := map[string]Record{}
	for _, f := range files {
		n, err := m.replayFile(ctx, f, open)
		total += n
		if err != nil {
			return total, fmt.Errorf("recover usage journal %s: %w", f.Name(), err)
		}
	}
	n, err := m.writeInterrupted(ctx, open)
	total += n
	if err != nil {
		return total, fmt.Errorf("recover usage journal: %w", err)
	}
	for _, f := range files {
		os.Remove(f.Name())
	}
	if total > 0 {
		m.opt.Log.Info("recovered usage records from the journal", "records", total, "files", len(files),
			"interrupted_streams", len(open))
	}
	return total, nil
}

// writeInterrupted writes the last progress of streams whose process died
// under them, one at a time so that the spend counters get the cost of
// exactly those that were new (the stream's own record may have reached
// the database while the segment with its progress outlived it).
func (m *Meter) writeInterrupted(ctx context.Context, open map[string]Record) (int, error) {
	total := 0
	for _, r := range open {
		n, err := m.write(ctx, []Record{r})
		if err != nil {
			return total, err
		}
		total += n
		if n == 1 && m.opt.Spend != nil && r.Cost > 0 {
			m.opt.Spend.AddSpend(r.AccountID, r.KeyID, r.Period(), r.Cost)
		}
	}
	return total, nil
}

// replayFile writes every record of f, idempotently. Progress lines are
// kept in open, or skipped when it is nil.
func (m *Meter) replayFile(ctx context.Context, f *os.File, open map[string]Record) (int, error) {
	total := 0
	skipped, err := readSegment(f, m.opt.BatchSize, func(b []Record) error {
		n, err := m.write(ctx, b)
		total += n
		return err
	}, open)
	if skipped > 0 {
		m.opt.Log.Warn("usage journal: skipped unreadable lines", "file", f.Name(), "lines", skipped)
	}
	return total, err
}

// write writes one batch within the write timeout.
func (m *Meter) write(ctx context.Context, recs []Record) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.opt.WriteTimeout)
	defer cancel()
	n, err := m.sink.WriteUsage(ctx, recs)
	m.written.Add(int64(n))
	return n, err
}
