package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// BenchmarkMeterWritesPostgres measures the meter's sustained writes to
// PostgreSQL, the journal's accounting included: each iteration queues a
// backlog of 20,000 records (benchRecord's traffic) in a new meter, not
// timed, then times Run writing it in batches of 500, one at a time or
// two at once (Options.Writers). Besides rows/s it reports this
// process's CPU time per row and the server's, summed over the store's
// backends from /proc (0 when the server is not on this machine).
func BenchmarkMeterWritesPostgres(b *testing.B) {
	const backlog = 20000
	for _, writers := range []int{1, 2} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			app := "sy_bench_" + strconv.FormatInt(time.Now().UnixNano(), 36)
			s := storetest.Open(b, withAppName(b, storetest.PostgresURL(b), app))
			dir, n := b.TempDir(), 0
			var cpu time.Duration
			b.ResetTimer()
			b.StopTimer()
			srv0 := backendTicks(b, s, app)
			for range b.N {
				m, err := meter.New(s, meter.Options{Dir: dir, Writers: writers, Log: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				now := time.Now()
				for range backlog {
					n++
					r := benchRecord(n, now)
					m.Record(&r)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				cpu0 := cpuTime()
				b.StartTimer()
				go func() { m.Run(ctx); close(done) }()
				for m.Stats().Written < backlog {
					if m.Stats().SinkFailures > 0 {
						b.Fatal("a batch failed")
					}
					time.Sleep(time.Millisecond)
				}
				b.StopTimer()
				cpu += cpuTime() - cpu0
				cancel()
				<-done
			}
			var ticks int64
			for pid, t := range backendTicks(b, s, app) {
				ticks += t - srv0[pid]
			}
			rows := float64(b.N * backlog)
			b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(cpu)/1e3/rows, "cpu-µs/row")
			b.ReportMetric(float64(ticks)*1e6/clockTicks/rows, "server-µs/row")
		})
	}
}

// withAppName returns the PostgreSQL URL u with application_name set to
// name, by which backendTicks finds the store's backends.
func withAppName(b *testing.B, u, name string) string {
	p, err := url.Parse(u)
	if err != nil {
		b.Fatal(err)
	}
	q := p.Query()
	q.Set("application_name", name)
	p.RawQuery = q.Encode()
	return p.String()
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ).
const clockTicks = 100

// backendTicks returns the CPU time (user and system, in clock ticks) of
// each backend of the server named app, by process ID, from /proc.
func backendTicks(b *testing.B, s *store.Store, app string) map[int]int64 {
	out := map[int]int64{}
	err := store.QueryForTest(context.Background(), s, func(row interface{ Scan(...any) error }) error {
		var pid int
		if err := row.Scan(&pid); err != nil {
			return err
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil // not on this machine
		}
		// Fields after the command's closing parenthesis: state is the
		// first, utime the 12th and stime the 13th.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			out[pid] = u + s
		}
		return nil
	}, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
