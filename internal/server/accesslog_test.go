package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// slogLine is the line slog's JSON handler writes of l at level and
// time now: what the access log wrote before it had its own encoder, and
// still writes through a handler that is not a LogHandler.
func slogLine(t *testing.T, now time.Time, level slog.Level, l *accessLine) string {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(now, level, "request", 0)
	a := l.attrs(now)
	r.AddAttrs(a[:]...)
	if err := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The access log line is byte for byte the line slog's JSON handler
// writes, over strings that need every kind of escape, numbers of every
// size, each level and times in several zones.
func TestAccessLineMatchesSlog(t *testing.T) {
	strs := []string{"", "plain", "POST /v1/chat/completions", `quote " inside`, `back\slash`, "nl\n cr\r tab\t",
		"\x00\x01\x08\x0c\x1f\x7f", "<script>&amp;</script>", "héllo 日本 😀", "bad \xff\xfe utf8 \xc3", "ls \u2028 ps \u2029 \u2027\u202a",
		"already \ufffd", "cut rune \xe2\x82", strings.Repeat("long-model-name/", 40), "req_0123456789abcdef0123456789abcdef"}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("W", -7*3600)}
	nanos := []int{0, 100_000_000, 123_000_000, 123_456_789, 999_999_999, 1_000}
	latencies := []time.Duration{0, 500, time.Microsecond, 81 * time.Microsecond, 999 * time.Microsecond, time.Millisecond,
		1500 * time.Millisecond, 123456789 * time.Microsecond, 17 * 24 * time.Hour, -time.Millisecond}
	levels := []slog.Level{slog.LevelInfo, slog.LevelError, slog.LevelWarn, slog.LevelDebug, slog.LevelInfo + 2}
	statuses := []int{200, 499, 502, 0}
	sizes := []int64{0, 5, 1 << 40, -1}
	n := 0
	for i, s := range strs {
		for j := range 12 {
			now := time.Date(2026, 11, 26, 9, 30, j, nanos[(i+j)%len(nanos)], zones[(i+j)%len(zones)])
			l := accessLine{
				id: s, method: strs[(i+1)%len(strs)], route: strs[(i+j)%len(strs)], model: s,
				status: statuses[j%len(statuses)], bytes: sizes[(i+j)%len(sizes)], start: now.Add(-latencies[(i+j)%len(latencies)]),
				account: strs[(i+2*j)%len(strs)], deployment: s + "/" + strs[j], attempts: j - 1,
			}
			level := levels[(i+j)%len(levels)]
			got, want := string(appendAccessLine(nil, now, level, &l)), slogLine(t, now, level, &l)
			if got != want {
				t.Errorf("line differs from slog's:\n got %q\nwant %q", got, want)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d lines compared", n)
	}
}

// appendJSONFloat writes what encoding/json writes, exponents included.
func TestAppendJSONFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 0.081, 1, 1.5, 123456.789, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.2345e22,
		-3e-9, 1e-100, 5e-324, 1.7976931348623157e308} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

// FuzzAccessLine compares the line with slog's for any strings.
func FuzzAccessLine(f *testing.F) {
	f.Add("req_1", "gpt-4o", "acct_\x00\"\\\u2028\xff")
	f.Fuzz(func(t *testing.T, id, model, account string) {
		now := time.Date(2026, 11, 26, 9, 30, 0, 123e6, time.UTC)
		l := accessLine{id: id, method: "POST", route: "POST /v1/chat/completions", model: model, status: 200,
			start: now.Add(-81 * time.Microsecond), account: account, deployment: model, attempts: 1}
		if got, want := string(appendAccessLine(nil, now, slog.LevelInfo, &l)), slogLine(t, now, slog.LevelInfo, &l); got != want {
			t.Errorf("line differs from slog's:\n got %q\nwant %q", got, want)
		}
	})
}

// lineHandler answers 5 bytes, 502 on /fail, else 200, its access
// record filled with every field the line shows.
func lineHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := RecordFrom(r.Context())
		rec.Route, rec.Model, rec.Account = "POST /v1/chat/completions", "gpt-4o", "acct_1"
		rec.Deployment, rec.Attempts = "east/gpt-4o", 2
		status := 200
		if r.URL.Path == "/fail" {
			status = 502
		}
		w.Header().Set("Content-Length", "5")
		w.WriteHeader(status)
		io.WriteString(w, "hello")
	})
}

// postTraced sends a POST to path with X-Request-Id trace-1 and reads
// the answer.
func postTraced(t *testing.T, ts *httptest.Server, path string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+path, nil)
	req.Header.Set("X-Request-Id", "trace-1")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// masked replaces a JSON line's time and latency, which the server
// takes from the clock.
var masked = regexp.MustCompile(`"time":"[^"]*"|"latency_ms":[0-9.]+`)

// Through the middleware, a LogHandler writes the documented line (the
// one TestAccessLogLine pins through slog), only at the levels enabled;
// a logger derived with With goes through slog, its attributes kept.
func TestLogHandlerAccessLog(t *testing.T) {
	h := lineHandler()
	line := func(level string, status string) string {
		return `{"time":"T","level":"` + level + `","msg":"request","id":"trace-1","method":"POST",` +
			`"route":"POST /v1/chat/completions","model":"gpt-4o","status":` + status + `,"bytes":5,"latency_ms":L,"account":"acct_1",` +
			`"deployment":"east/gpt-4o","attempts":2}` + "\n"
	}
	for _, tt := range []struct {
		name  string
		level slog.Level
		with  bool
		path  string
		want  string
	}{
		{"info", slog.LevelInfo, false, "/ok", line("INFO", "200")},
		{"error", slog.LevelInfo, false, "/fail", line("ERROR", "502")},
		{"info filtered", slog.LevelWarn, false, "/ok", ""},
		{"error kept", slog.LevelWarn, false, "/fail", line("ERROR", "502")},
		{"derived", slog.LevelInfo, true, "/ok", strings.Replace(line("INFO", "200"), `"msg":"request",`, `"msg":"request","component":"api",`, 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &syncBuffer{}
			log := slog.New(NewLogHandler(logs, tt.level))
			if tt.with {
				log = log.With("component", "api")
			}
			ts := httptest.NewServer(Chain(h, AccessLog(log)))
			postTraced(t, ts, tt.path)
			ts.Close() // returns once the handler, and so the line, is done
			got := masked.ReplaceAllStringFunc(logs.String(), func(s string) string {
				if strings.HasPrefix(s, `"time"`) {
					return `"time":"T"`
				}
				return `"latency_ms":L`
			})
			if got != tt.want {
				t.Errorf("log\n%q want\n%q", got, tt.want)
			}
		})
	}
}

// Lines written at once by the access log and by slog, to a writer that
// is not a file, come out whole, one per Write.
func TestLogHandlerLinesWhole(t *testing.T) {
	var w lineCounter
	h := NewLogHandler(&w, slog.LevelInfo)
	log := slog.New(h)
	l := accessLine{id: "req_1", method: "POST", route: strings.Repeat("r", 500), start: time.Now()}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 200 {
				if g%2 == 0 {
					logRequest(context.Background(), log, slog.LevelInfo, &l)
				} else {
					log.Info("other", "g", g)
				}
			}
		})
	}
	wg.Wait()
	if w.lines != 1600 || w.torn != 0 {
		t.Errorf("%d whole lines, %d torn; want 1600 whole", w.lines, w.torn)
	}
}

// lineCounter counts the writes that are one whole JSON line; it is not
// safe for concurrent use, so that the race detector sees writes that
// overlap.
type lineCounter struct{ lines, torn int }

func (c *lineCounter) Write(p []byte) (int, error) {
	if bytes.Count(p, []byte("\n")) == 1 && p[len(p)-1] == '\n' && json.Valid(p) {
		c.lines++
	} else {
		c.torn++
	}
	return len(p), nil
}

// BenchmarkAccessLine measures the access log line alone, written to
// /dev/null (a write(2) each) by slog's JSON handler and by a
// LogHandler; 0 allocs/op for the LogHandler.
func BenchmarkAccessLine(b *testing.B) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	l := accessLine{id: "req_6f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f", method: "POST", route: "POST /v1/chat/completions",
		model: "gpt-4o-mini", status: 200, bytes: 712, start: time.Now(), account: "acct_01JDQ3X4M2",
		deployment: "openai/gpt-4o-mini-2024-07-18", attempts: 1}
	for _, bb := range []struct {
		name string
		h    slog.Handler
	}{
		{"slog", slog.NewJSONHandler(devnull, nil)},
		{"LogHandler", NewLogHandler(devnull, slog.LevelInfo)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			log := slog.New(bb.h)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				logRequest(ctx, log, slog.LevelInfo, &l)
			}
		})
	}
}
