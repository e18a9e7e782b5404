package meter

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The journal is the write-ahead log of usage records: each record is
// written to the file (the page cache) before it is queued for the
// database, so a record the gateway produced survives the process dying
// (kill -9, OOM, panic) and is written on the next start. Concurrent
// requests share writes (group commit): the lines appended while one
// write(2) is under way go out together in the next one, and each request
// waits until its own line is written. It lives in segments,
// files named seg-<ns>-<rand>.jsonl with one JSON record per line. A
// process holds an exclusive lock on its own segments; any file in the
// directory that nobody holds belongs to a dead process and is recovered.
//
// A segment is deleted once every record in it is in the database. When
// a record could not be kept in memory (full queue, database down past the
// memory bound) its segment is marked for replay: it is read back and
// written again, which is harmless because writes are idempotent. So is a
// segment whose write or fsync failed: some of its lines may be torn, or
// missing from the disk (see journal.sync).
//
// The writer's tick syncs the lines written since the last tick, and the
// directory when a segment was created since: a synced segment whose
// directory entry was not is lost to a power loss all the same.
//
// A stream also journals progress lines while it runs: its record as it
// would be if the stream ended there, with "open":true, when its first
// chunk is sent and then at an interval. They are never written to the
// database by the process that wrote them; the stream's final record
// supersedes them. A segment holding the latest progress line of a stream
// still under way is kept, so that after a crash Recover finds the line
// and writes it as the stream's record (see Meter.Recover).

// segment is one journal file.
type segment struct {
	path string
	f    *os.File
	size int64

	// Guarded by journal.mu.
	written   int64 // records appended
	committed int64 // records known to be in the database
	open      int64 // streams under way whose latest progress line is here
	unwritten int64 // lines appended to a group not yet written
	replay    bool  // some record is only on disk: read the file back
	sealed    bool  // no more appends
	closed    bool  // the file is closed: removed, or the journal closed
	syncs     int64 // fsyncs made of the file

	// last is the number of the last line appended here or, before the
	// first, of the last line appended to the journal when the segment
	// was opened; guarded by journal.mu. It grows from each segment to
	// the next, so sync finds the sealed segments holding lines it has
	// not synced at the end of journal.sealed.
	last uint64
}

// done reports whether the segment holds nothing that is not elsewhere:
// every record is in the database, no stream's progress is only here and
// no line is on its way to the file.
func (s *segment) done() bool { return s.committed >= s.written && s.open == 0 && s.unwritten == 0 }

// span is the end in a group's buffer of the lines for seg, and how many
// they are. A group is the lines appended while the previous group was
// being written; they go out in one write(2) per segment (one, but at a
// rotation).
type span struct {
	seg   *segment
	end   int
	lines int64
}

// journal appends records to the current segment.
type journal struct {
	dir      string
	maxBytes int64

	mu     sync.Mutex
	cur    *segment            // guarded by mu
	sealed []*segment          // guarded by mu: waiting for their records to commit
	open   map[string]*segment // guarded by mu: record ID → segment of its latest progress line

	// Group commit, guarded by mu. Lines are numbered in order of append.
	wrote    *sync.Cond // signalled when a group is written
	buf      []byte     // the next group's lines
	spans    []span     // buf cut by segment, in order
	appended uint64     // the last line appended
	flushed  uint64     // the last line written (or failed)
	writing  bool       // a group is being written
	spare    []byte     // the buffer of the last group written, for reuse
	spareSp  []span
	fails    [8]failure // the last failed groups, for their lines' callers
	nfails   int

	// synced is the last line flushed when the journal was last synced:
	// every line up to it is on stable storage. Guarded by mu; syncs
	// counts the fsyncs made. Only Run's goroutine syncs, and it is the
	// one that removes and closes segments, but sync does not count on it.
	synced uint64
	syncs  int64

	// dirty is set when a segment file was created since the directory
	// was last synced: until the directory is, its entry may be lost to a
	// power loss, and with it the segment's synced lines. Guarded by mu;
	// dirSyncs counts the directory's fsyncs.
	dirty     bool
	dirRetry  bool // the directory's last fsync failed: the next sync retries it
	noDirSync bool // the file system refuses an fsync of a directory
	dirSyncs  int64

	// syncFile fsyncs a segment's file or the directory; tests replace it
	// to make fsyncs fail.
	syncFile func(*os.File) error
}

// failure is a group whose write failed: lines from to to.
type failure struct {
	from, to uint64
	err      error
}

// openJournal creates dir if needed and opens a new segment in it.
func openJournal(dir string, maxBytes int64) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("usage journal: %w", err)
	}
	j := &journal{dir: dir, maxBytes: maxBytes, open: map[string]*segment{}, syncFile: (*os.File).Sync}
	j.wrote = sync.NewCond(&j.mu)
	seg, err := j.newSegment()
	if err != nil {
		return nil, err
	}
	j.cur, j.dirty = seg, true
	return j, nil
}

func (j *journal) newSegment() (*segment, error) {
	name := "seg-" + strconv.FormatInt(time.Now().UnixNano(), 10) + "-" + strings.ToLower(rand.Text()[:8]) + ".jsonl"
	path := filepath.Join(j.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("usage journal: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("usage journal: lock %s: %w", name, err)
	}
	return &segment{path: path, f: f}, nil
}

// appendLocked writes r to the current segment and returns it, once the
// line is written. On a write failure the record is still counted so that
// its segment is replayed rather than deleted while the record may be in
// it partly. Once r is journaled, its stream's progress lines are no
// longer needed. mu is released while the line is written.
func (j *journal) appendLocked(r *Record) (*segment, error) {
	seg, err := j.writeLocked(r, false)
	if seg == nil {
		return nil, err
	}
	if err != nil {
		return nil, err // the segment is replayed, skipping the torn line
	}
	if p := j.open[r.ID]; p != nil {
		p.open--
		delete(j.open, r.ID)
	}
	return seg, nil
}

// progressLocked writes r as its stream's latest progress line, which
// keeps its segment until the stream's record is journaled.
func (j *journal) progressLocked(r *Record) error {
	seg, err := j.writeLocked(r, true)
	if err != nil {
		return err // a torn line is skipped when read
	}
	if p := j.open[r.ID]; p != nil {
		p.open--
	}
	seg.open++
	j.open[r.ID] = seg
	return nil
}

// writeLocked appends r's line (a progress line when progress) to the
// current segment, starting a new one when it is full, and returns once
// the line is written, with the segment written to (nil when none). The
// line joins the next group; the first goroutine to find no write under
// way writes that group, while the others wait for it.
func (j *journal) writeLocked(r *Record, progress bool) (*segment, error) {
	if j.cur.size >= j.maxBytes {
		if err := j.rotateLocked(); err != nil {
			return nil, err
		}
	}
	seg := j.cur
	n := len(j.buf)
	if progress {
		j.buf = appendProgressJSON(j.buf, r)
	} else {
		j.buf = appendJSON(j.buf, r)
		seg.written++
	}
	seg.size += int64(len(j.buf) - n)
	seg.unwritten++
	j.appended++
	seg.last = j.appended
	if k := len(j.spans) - 1; k >= 0 && j.spans[k].seg == seg {
		j.spans[k].end, j.spans[k].lines = len(j.buf), j.spans[k].lines+1
	} else {
		j.spans = append(j.spans, span{seg: seg, end: len(j.buf), lines: 1})
	}
	line := j.appended
	for j.flushed < line {
		if j.writing {
			j.wrote.Wait()
			continue
		}
		j.flushLocked()
	}
	return seg, j.errorOf(line)
}

// flushLocked writes the next group, with mu released meanwhile. A
// failed write marks the group's segments for replay: a line may be
// torn.
func (j *journal) flushLocked() {
	buf, spans, from, to := j.buf, j.spans, j.flushed+1, j.appended
	j.buf, j.spans, j.spare, j.spareSp = j.spare[:0], j.spareSp[:0], nil, nil
	j.writing = true
	j.mu.Unlock()
	var err error
	start := 0
	for _, s := range spans {
		if _, werr := s.seg.f.Write(buf[start:s.end]); werr != nil && err == nil {
			err = fmt.Errorf("usage journal: %w", werr)
		}
		start = s.end
	}
	j.mu.Lock()
	for _, s := range spans {
		s.seg.unwritten -= s.lines
		if err != nil {
			s.seg.replay = true
		}
	}
	if err != nil {
		j.fails[j.nfails%len(j.fails)] = failure{from: from, to: to, err: err}
		j.nfails++
	}
	j.flushed, j.writing = to, false
	if cap(buf) <= maxSpare {
		j.spare = buf
	}
	clear(spans)
	j.spareSp = spans[:0]
	j.wrote.Broadcast()
}

// errorOf returns the error of the write of line, if it is among the
// last failures (older ones are not told: their segments are replayed
// all the same).
func (j *journal) errorOf(line uint64) error {
	for _, f := range j.fails[:min(j.nfails, len(j.fails))] {
		if f.from <= line && line <= f.to {
			return f.err
		}
	}
	return nil
}

// maxSpare bounds the group buffer kept for reuse.
const maxSpare = 256 << 10

// rotateLocked seals the current segment and starts a new one. The
// sealed segment's lines since the last sync are synced by the next one,
// and so is the directory, for the new file's entry: not here, where a
// request waits.
func (j *journal) rotateLocked() error {
	seg, err := j.newSegment()
	if err != nil {
		return err
	}
	seg.last = j.appended
	j.dirty = true // the next sync makes the file's entry durable
	j.cur.sealed = true
	j.sealed = append(j.sealed, j.cur)
	j.cur = seg
	return nil
}

// commit notes that n records of seg are in the database.
func (j *journal) commit(seg *segment, n int64) {
	j.mu.Lock()
	seg.committed += n
	j.mu.Unlock()
}

// markReplay notes that a record of seg is only on disk.
func (j *journal) markReplayLocked(seg *segment) { seg.replay = true }

// collect deletes the sealed segments whose records are all in the
// database, and returns those that must be read back (sealing the current
// one first if it needs it).
func (j *journal) collect() (replay []*segment) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur.replay {
		if err := j.rotateLocked(); err != nil {
			return nil // try again on the next flush
		}
	}
	keep := j.sealed[:0]
	for _, s := range j.sealed {
		switch {
		case s.replay && s.unwritten > 0:
			keep = append(keep, s) // read it back once its last lines are in
		case s.replay:
			replay = append(replay, s)
			keep = append(keep, s)
		case s.done():
			s.remove()
		default:
			keep = append(keep, s)
		}
	}
	j.sealed = keep
	return replay
}

// replayed drops a segment whose file was read back into the database,
// or only notes that its records are in when it still holds a stream's
// progress.
func (j *journal) replayed(seg *segment) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if seg.open > 0 {
		seg.replay, seg.committed = false, seg.written
		return
	}
	for i, s := range j.sealed {
		if s == seg {
			j.sealed = append(j.sealed[:i], j.sealed[i+1:]...)
			break
		}
	}
	seg.remove()
}

// close removes the current segment when all its records are in the
// database and no stream is under way (a clean stop), and closes the
// files.
func (j *journal) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.cur.replay && j.cur.done() {
		j.cur.remove()
	} else {
		j.cur.closeFile()
	}
	for _, s := range j.sealed {
		s.closeFile()
	}
}

// backlog returns how many records the journal holds that are not known
// to be in the database, and the size of its segments.
func (j *journal) backlog() (records, bytes int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, s := range append([]*segment{j.cur}, j.sealed...) {
		records += max(s.written-s.committed, 0)
		bytes += s.size
	}
	return records, bytes
}

// sync flushes to stable storage every line written so far: those of
// the current segment and of the segments sealed since the last sync,
// and the directory's entries for the segments created since then. It
// makes no fsync when no line was written since the last sync: an idle
// gateway's ticks would otherwise cost an fsync each, ten a second, for
// nothing (a new segment's entry matters once it holds a line). mu is
// not held across an fsync, so appends do not wait for the disk.
//
// A failed fsync marks its segment for replay. On Linux the kernel may
// drop the dirty pages of a file whose writeback failed and report the
// failure once: the next fsync succeeds and synced moves past lines that
// are not on the disk. Reading the segment back writes to the database
// every record the file still holds, and the segment is deleted only
// then; the records of the lost lines that are in memory are written
// from there, as every record is.
func (j *journal) sync() error {
	j.mu.Lock()
	upTo := j.flushed
	if upTo == j.synced && !j.dirRetry {
		j.mu.Unlock()
		return nil
	}
	var files []*segment
	if upTo != j.synced {
		files = append(files, j.cur)
		for i := len(j.sealed) - 1; i >= 0 && j.sealed[i].last > j.synced; i-- {
			files = append(files, j.sealed[i])
		}
	}
	for _, s := range files {
		s.syncs++
	}
	j.syncs += int64(len(files))
	dir := (j.dirty || j.dirRetry) && !j.noDirSync
	if dir {
		j.dirty, j.dirRetry = false, false
		j.dirSyncs++
	}
	j.mu.Unlock()
	var err error
	for _, s := range files {
		if serr := j.syncFile(s.f); serr != nil && j.failed(s) && err == nil {
			err = fmt.Errorf("usage journal: %w", serr)
		}
	}
	if err == nil {
		// The files' lines are on the disk: the directory's fsync, which
		// decides only whether their entries are, does not hold them back.
		j.mu.Lock()
		j.synced = max(j.synced, upTo)
		j.mu.Unlock()
	}
	if dir {
		if derr := syncDir(j.dir, j.syncFile); derr != nil {
			j.mu.Lock()
			// Some file systems refuse an fsync of a directory, always: it
			// is not tried again there, rather than ten times a second.
			unsupported := errors.Is(derr, syscall.EINVAL) || errors.Is(derr, errors.ErrUnsupported)
			j.noDirSync = unsupported
			j.dirRetry = !unsupported // else try again on the next sync
			j.mu.Unlock()
			if err == nil && unsupported {
				err = fmt.Errorf("usage journal: this file system cannot sync the journal's directory; not tried again: %w", derr)
			} else if err == nil {
				err = fmt.Errorf("usage journal: sync directory: %w", derr)
			}
		}
	}
	return err
}

// failed notes that the fsync of s failed, marking it for replay, and
// reports whether that is a failure of the journal. The fsync of a
// segment closed meanwhile fails, and is none: a segment is closed once
// its records are all in the database (remove), or when the journal
// closes. Such an fsync never reaches a file that took the descriptor
// over: os.File releases it only once the fsync is done.
func (j *journal) failed(s *segment) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s.closed {
		return false
	}
	s.replay = true
	return true
}

func (s *segment) remove() {
	os.Remove(s.path) // before Close: the lock holds until the name is gone
	s.closeFile()
}

// closeFile closes the segment's file; journal.mu is held.
func (s *segment) closeFile() {
	s.closed = true
	s.f.Close()
}

// orphans returns the journal files in dir that no process holds, each
// opened and locked for the caller, who must close them.
func orphans(dir string) ([]*os.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "seg-*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []*os.File
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			continue // removed meanwhile
		}
		if lockFile(f) != nil {
			f.Close() // a live process owns it
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// maxLine bounds one journal line; records are a few hundred bytes.
const maxLine = 1 << 20

// line is one journal line: a record, or a stream's progress.
type line struct {
	Record
	Open bool `json:"open"`
}

// readSegment decodes the records of a journal file, calling fn with
// batches of up to n. A torn last line (the process died mid-write) and
// undecodable lines are skipped and counted. Progress lines are skipped
// when open is nil; otherwise open keeps each stream's latest one until
// its record is read.
func readSegment(r io.Reader, n int, fn func([]Record) error, open map[string]Record) (skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	batch := make([]Record, 0, n)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.ID == "" {
			skipped++
			continue
		}
		if open != nil && l.Open {
			open[l.ID] = l.Record
		}
		if l.Open {
			continue
		}
		if open != nil {
			delete(open, l.ID)
		}
		batch = append(batch, l.Record)
		if len(batch) == n {
			if err := fn(batch); err != nil {
				return skipped, err
			}
			batch = batch[:0]
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return skipped, err
	}
	if len(batch) > 0 {
		return skipped, fn(batch)
	}
	return skipped, nil
}
