package meter_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// progress returns record i as a stream under way would journal it after
// sending n chunks.
func progress(i int, n int64) *meter.Record {
	r := record(i)
	r.Streamed, r.Estimated, r.Cancelled = true, true, true
	r.CompletionTokens, r.TotalTokens = n, r.PromptTokens+n
	r.Cost = usd.Amount(1_000_000 * (r.TotalTokens))
	return r
}

// TestRecoverInterruptedStreams: after a crash, a stream that had only
// journaled its progress is written as its latest progress; a stream
// whose record was journaled is written as that record; a stream whose
// record had reached the database is not written again, and its cost is
// not counted twice.
func TestRecoverInterruptedStreams(t *testing.T) {
	dir := t.TempDir()
	s := newSink()
	dead, err := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	dead.Progress(progress(1, 1))
	dead.Progress(progress(1, 40)) // the latest progress of stream 1
	dead.Progress(progress(2, 1))
	dead.Progress(progress(3, 1))
	dead.Record(record(3)) // stream 3 ended
	dead.Progress(progress(4, 1))
	s.WriteUsage(context.Background(), []meter.Record{*record(4)}) // stream 4's record is in the database
	dead.Record(record(5))
	dead.Abandon()

	sp := &spend{sum: map[string]usd.Amount{}}
	next, err := meter.New(s, meter.Options{Dir: dir, Spend: sp, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := next.Recover(context.Background()); n != 4 || err != nil {
		t.Fatalf("Recover = %d, %v; want 4 new records", n, err)
	}
	want := map[string]*meter.Record{"usg_000001": progress(1, 40), "usg_000002": progress(2, 1),
		"usg_000003": record(3), "usg_000004": record(4), "usg_000005": record(5)}
	for id, w := range want {
		got := s.rows[id]
		if got.CompletionTokens != w.CompletionTokens || got.Estimated != w.Estimated {
			t.Errorf("%s: %+v, want %+v", id, got, w)
		}
	}
	if len(s.rows) != len(want) {
		t.Errorf("%d rows, want %d", len(s.rows), len(want))
	}
	// Only the interrupted streams are news to the spend counters: the
	// records were counted by the process that made them.
	if got, want := sp.sum["acct_a/key_a/"+meter.PeriodOf(time.Now())], progress(1, 40).Cost+progress(2, 1).Cost; got != want {
		t.Errorf("spend added at recovery = %v, want %v", got, want)
	}
	if files := journalFiles(t, dir); len(files) != 1 {
		t.Errorf("journal files after Recover: %v, want only the live segment", files)
	}
	start(next)()
}

// TestProgressKeepsSegment: the segment with a running stream's progress
// outlives the records around it, even once they are all written, until
// the stream's record is journaled; a stop in between (a handler stuck
// past the shutdown drain) leaves it for the next start.
func TestProgressKeepsSegment(t *testing.T) {
	for _, ended := range []bool{false, true} {
		t.Run(map[bool]string{false: "stopped while under way", true: "ended"}[ended], func(t *testing.T) {
			dir := t.TempDir()
			s := newSink()
			m, err := meter.New(s, meter.Options{Dir: dir, SegmentBytes: 4 << 10, FlushInterval: 5 * time.Millisecond, Log: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			stop := start(m)
			m.Progress(progress(0, 1))
			for i := 1; i <= 100; i++ { // several segments
				m.Record(record(i))
			}
			waitFor(t, "100 rows", func() bool { return s.count() == 100 })
			if ended {
				m.Record(progress(0, 9))
				waitFor(t, "segments collected", func() bool { return len(journalFiles(t, dir)) == 1 })
				stop()
				if got := s.rows["usg_000000"]; got.CompletionTokens != 9 {
					t.Errorf("stream record %+v", got)
				}
				return
			}
			stop() // drains, collecting the segments that are done
			if s.count() != 100 {
				t.Fatalf("%d rows: the progress line was written as a record", s.count())
			}
			next, _ := meter.New(s, meter.Options{Dir: dir, Log: quiet()})
			if n, err := next.Recover(context.Background()); n != 1 || err != nil || s.rows["usg_000000"].CompletionTokens != 1 {
				t.Errorf("Recover = %d, %v; row %+v", n, err, s.rows["usg_000000"])
			}
			start(next)()
		})
	}
}

// BenchmarkJournal measures what a stream's progress line costs the
// request path (one encode and one write(2)) beside a record's.
func BenchmarkJournal(b *testing.B) {
	m, err := meter.New(newSink(), meter.Options{Dir: b.TempDir(), QueueSize: 1 << 20, Log: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(start(m))
	b.Run("progress", func(b *testing.B) {
		r := progress(1, 1)
		b.ReportAllocs()
		for b.Loop() {
			m.Progress(r)
		}
	})
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			m.Record(record(i))
		}
	})
}
