package gateway

import (
	"net/http"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/provider"
	"github.com/switchyard-gw/switchyard/internal/server"
)

// progressLog keeps copies of the records a Recorder is given.
type progressLog struct{ progress, records []meter.Record }

func (l *progressLog) Record(r *meter.Record)   { l.records = append(l.records, *r) }
func (l *progressLog) Progress(r *meter.Record) { l.progress = append(l.progress, *r) }

// streamExchange returns the exchange of a stream that arrived a moment
// ago, metered to rec.
func streamExchange(rec Recorder) *exchange {
	m := &catalog.Model{ID: "m", InputPrice: 2_000_000, OutputPrice: 8_000_000}
	return &exchange{g: &Gateway{opt: Options{Meter: rec}}, model: m, requested: m, access: &server.Record{}, prompt: 10,
		rec: meter.Record{ID: "usg_1", Time: time.Now().Add(-time.Millisecond), Model: "m", Streamed: true}}
}

// TestChunkJournalsProgress: the first chunk journals the record the
// stream would have if it ended there; later chunks within the interval
// journal nothing; and the record finally given to the meter is the
// stream's own, whatever progress was journaled before it.
func TestChunkJournalsProgress(t *testing.T) {
	log := &progressLog{}
	x := streamExchange(log)
	for range 3 {
		x.chunk()
	}
	if len(log.progress) != 1 {
		t.Fatalf("%d progress lines after 3 chunks, want 1", len(log.progress))
	}
	p := log.progress[0]
	if p.Status != http.StatusOK || !p.Cancelled || !p.Estimated || p.PromptTokens != 10 || p.CompletionTokens != 1 ||
		p.TotalTokens != 11 || p.Cost != p.Price() || p.Cost == 0 || p.TTFT <= 0 || p.Latency < p.TTFT {
		t.Errorf("progress record %+v", p)
	}

	x.finish(Outcome{Status: http.StatusOK}, provider.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10})
	quiet := streamExchange(&progressLog{})
	quiet.rec.TTFT = x.rec.TTFT
	quiet.finish(Outcome{Status: http.StatusOK}, provider.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10})
	got, want := log.records[0], quiet.rec
	got.Time, got.Latency, want.Time, want.Latency = time.Time{}, 0, time.Time{}, 0
	if got != want {
		t.Errorf("record after progress\n%+v\nwant the record of a stream without progress\n%+v", got, want)
	}
}

// TestChunkProgressAllocatesNothing: journaling a stream's progress
// costs the stream no allocation (the record once escaped to the heap,
// a copy handed to the Recorder interface).
func TestChunkProgressAllocatesNothing(t *testing.T) {
	x := streamExchange(nopRecorder{})
	if n := testing.AllocsPerRun(100, func() {
		x.rec.TTFT = 0 // each run is a first chunk, which journals
		x.chunk()
	}); n != 0 {
		t.Errorf("a first chunk allocates %v times, want 0", n)
	}
}

type nopRecorder struct{}

func (nopRecorder) Record(*meter.Record)   {}
func (nopRecorder) Progress(*meter.Record) {}

// TestChunkAfterFinish: once the record is handed to the meter, which
// keeps it until it is written, a chunk changes nothing in it and
// journals no progress (whose line would keep its journal segment open).
func TestChunkAfterFinish(t *testing.T) {
	log := &progressLog{}
	x := streamExchange(log)
	x.finish(Outcome{Status: http.StatusOK}, provider.Usage{PromptTokens: 7, CompletionTokens: 3})
	before := x.rec
	x.chunk()
	if len(log.progress) != 0 || x.rec != before {
		t.Errorf("after finish a chunk journaled %d progress lines and changed the record\n%+v\nto\n%+v", len(log.progress), before, x.rec)
	}
}
