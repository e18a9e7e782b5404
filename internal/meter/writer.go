package meter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// retry bounds for a failing sink.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)

// writer is Run's state; only Run's goroutine touches it, but for the
// record buffer of each batch a round writes on a goroutine of its own.
type writer struct {
	m       *Meter
	pending []item
	spare   []item     // the queue's last slice, emptied, for reuse
	recs    [][]Record // the batches given to the sink, one per writer, reused
	errs    []error    // the outcomes of a round's batches, one per writer
	retryAt time.Time
	backoff time.Duration
}

// Run writes queued records in batches, up to Writers of them at once,
// until ctx ends, then drains the queue and writes what it can within
// DrainTimeout; whatever is left stays in the journal for the next start.
// Journal segments marked for replay are read back one batch at a time.
// Call it once; Record must not be called after ctx ends and Run has
// returned.
func (m *Meter) Run(ctx context.Context) {
	w := &writer{m: m, recs: make([][]Record, m.opt.Writers), errs: make([]error, m.opt.Writers)}
	t := time.NewTicker(m.opt.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.drain(ctx)
			return
		case <-m.full:
			w.take()
			w.safeFlush(ctx)
		case <-t.C:
			w.take()
			w.safeFlush(ctx)
			if err := m.j.sync(); err != nil {
				m.opt.Log.Warn("usage journal sync failed", "err", err)
			}
		}
	}
}

// take moves the queued records to pending. When none are pending, as
// is usual, the queue's slice becomes pending whole and pending's empty
// one the next queue: the two take turns, and no record is copied.
func (w *writer) take() {
	w.m.j.mu.Lock()
	q := w.m.queue
	w.m.queue = w.spare
	w.m.j.mu.Unlock()
	if len(w.pending) == 0 && len(q) <= w.m.opt.MemoryLimit {
		w.pending, w.spare = q, w.pending[:0]
		return
	}
	for _, it := range q {
		w.hold(it)
	}
	clear(q)
	w.spare = q[:0]
}

// hold keeps it in memory, or only in the journal past the memory bound.
func (w *writer) hold(it item) {
	if len(w.pending) < w.m.opt.MemoryLimit || it.seg == nil {
		w.pending = append(w.pending, it)
		return
	}
	w.m.j.mu.Lock()
	w.m.j.markReplayLocked(it.seg)
	w.m.j.mu.Unlock()
	w.m.spilled.Add(1)
}

// safeFlush flushes, turning a panic into a log line so that the writer
// keeps running (the records stay journaled).
func (w *writer) safeFlush(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			w.m.opt.Log.Error("usage writer panic", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	w.flush(ctx)
}

// flush writes the pending records in batches and, once none are
// pending, reads back the journal segments marked for replay. Those not
// written stay at the front of pending, which keeps its array.
func (w *writer) flush(ctx context.Context) {
	if w.m.down.Load() && time.Now().Before(w.retryAt) {
		return
	}
	sent, err := w.writePending(ctx)
	if sent > 0 {
		w.recovered()
	}
	if err != nil {
		w.failed(err)
		return
	}
	for _, seg := range w.m.j.collect() {
		f, err := os.Open(seg.path)
		if err != nil {
			w.failed(fmt.Errorf("reopen journal segment: %w", err))
			return
		}
		_, err = w.m.replayFile(ctx, f, nil)
		f.Close()
		if err != nil {
			w.failed(err)
			return
		}
		w.m.j.replayed(seg)
	}
}

// writePending writes the pending records in rounds of up to Writers
// batches (writeRound) until one fails, and drops those written from
// pending, keeping its array. The drop is deferred so that it happens
// when a later round panics too: a written batch left pending would be
// written again and its records counted twice as committed in their
// segment, which could then be deleted while later records of it are
// only in memory.
func (w *writer) writePending(ctx context.Context) (sent int, err error) {
	defer func() {
		left := copy(w.pending, w.pending[sent:])
		clear(w.pending[left:])
		w.pending = w.pending[:left]
	}()
	for sent < len(w.pending) {
		var n int
		n, err = w.writeRound(ctx, w.pending[sent:])
		sent += n
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// writeRound writes the first Writers batches of items at once, each on
// a goroutine of its own (a single batch on Run's), waits for all of
// them, and notes the records of those before the first that failed as
// committed in their segments; it returns how many items those hold, a
// prefix of items. A batch written after a failed one stays pending and
// is written again with it. That is harmless: writes are idempotent (the
// second finds its records stored and counts none as new), and its
// records are noted as committed once, when they leave pending, so a
// segment is never deleted on a count that includes pending records.
func (w *writer) writeRound(ctx context.Context, items []item) (int, error) {
	size := w.m.opt.BatchSize
	batch := func(i int) []item { return items[i*size : min((i+1)*size, len(items))] }
	k := min(w.m.opt.Writers, (len(items)+size-1)/size)
	errs := w.errs[:k]
	if k == 1 {
		errs[0] = w.send(ctx, 0, batch(0))
	} else {
		var wg sync.WaitGroup
		for i := range k {
			wg.Go(func() { errs[i] = w.send(ctx, i, batch(i)) })
		}
		wg.Wait()
	}
	done := 0
	for i, err := range errs {
		if err != nil {
			return done, err
		}
		w.committed(batch(i))
		done += len(batch(i))
	}
	return done, nil
}

// errSinkPanic marks the failure of a batch whose sink write panicked.
var errSinkPanic = errors.New("usage sink panic")

// send gives the sink copies of the records of items, in the round's
// ith record buffer. A panic in the sink is logged with its stack and
// fails this batch alone, as an errSinkPanic error, so that the round's
// other batches are waited for; it is retried as a failed write is.
func (w *writer) send(ctx context.Context, i int, items []item) (err error) {
	defer func() {
		if p := recover(); p != nil {
			w.m.opt.Log.Error("usage writer panic", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errSinkPanic, p)
		}
	}()
	recs := w.recs[i][:0]
	for _, it := range items {
		recs = append(recs, *it.rec)
	}
	_, err = w.m.write(ctx, recs)
	clear(recs)
	w.recs[i] = recs[:0]
	return err
}

// committed notes the records of items, just written, as committed in
// their segments.
func (w *writer) committed(items []item) {
	var seg *segment
	var n int64
	for _, it := range items {
		if it.seg != seg {
			if seg != nil {
				w.m.j.commit(seg, n)
			}
			seg, n = it.seg, 0
		}
		n++
	}
	if seg != nil {
		w.m.j.commit(seg, n)
	}
}

// failed notes a sink failure and schedules the next try. A sink panic
// is a failure too, the sink down until a write succeeds, but is not
// reported as the database's.
func (w *writer) failed(err error) {
	w.m.failures.Add(1)
	w.backoff = min(max(2*w.backoff, minRetry), maxRetry)
	w.retryAt = time.Now().Add(w.backoff)
	if w.m.down.Swap(true) {
		return
	}
	msg := "usage writer: database unavailable; records are kept and retried"
	if errors.Is(err, errSinkPanic) {
		msg = "usage writer: sink panicked; records are kept and retried"
	}
	w.m.opt.Log.Error(msg, "err", err, "pending", len(w.pending))
}

func (w *writer) recovered() {
	w.backoff = 0
	if w.m.down.Swap(false) {
		w.m.opt.Log.Info("usage writer: batches are written again", "pending", len(w.pending))
	}
}

// drain writes what is queued, retrying until DrainTimeout, then closes
// the journal (deleting the segment when all its records are written).
func (w *writer) drain(ctx context.Context) {
	deadline := time.Now().Add(w.m.opt.DrainTimeout)
	for {
		w.take()
		w.retryAt = time.Time{}
		w.safeFlush(ctx)
		if len(w.pending) == 0 && w.m.queued() == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(min(w.backoff, time.Until(deadline)))
	}
	if n := len(w.pending); n > 0 {
		w.m.opt.Log.Warn("usage writer stopped with records unwritten; they stay in the journal for the next start",
			"records", n, "dir", w.m.opt.Dir)
	}
	// The lines since the last tick reach stable storage before the files
	// close: a power loss right after a stop must not lose them.
	if err := w.m.j.sync(); err != nil {
		w.m.opt.Log.Warn("usage journal sync failed", "err", err)
	}
	w.m.j.close()
}
