package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/switchyard-gw/switchyard/internal/metrics"
)

func TestSources(t *testing.T) {
	m := metrics.New(metrics.Options{Sources: metrics.Sources{
		Meter: func() metrics.MeterStats {
			return metrics.MeterStats{Queued: 3, BacklogRecords: 5, BacklogBytes: 2048, Written: 40, Spilled: 2, WriteFailures: 1}
		},
		Deployments: func() []metrics.Deployment {
			return []metrics.Deployment{{Key: "openai/a", Cooling: true}, {Key: "east/b"}, {Key: "openai/a", Cooling: true}}
		},
		KeyCache:         func() (int64, int64) { return 90, 10 },
		InFlightRequests: func() int64 { return 7 },
		InFlightStreams:  func() int64 { return 2 },
	}})
	want := `
# HELP switchyard_meter_queue_depth Usage records waiting for the writer.
# TYPE switchyard_meter_queue_depth gauge
switchyard_meter_queue_depth 3
# HELP switchyard_meter_journal_backlog_records Journaled usage records not yet known to be in the database.
# TYPE switchyard_meter_journal_backlog_records gauge
switchyard_meter_journal_backlog_records 5
# HELP switchyard_meter_journal_bytes Size of the usage journal's segments on disk.
# TYPE switchyard_meter_journal_bytes gauge
switchyard_meter_journal_bytes 2048
# HELP switchyard_meter_records_written_total Usage records the writer inserted into the database.
# TYPE switchyard_meter_records_written_total counter
switchyard_meter_records_written_total 40
# HELP switchyard_meter_records_lost_total Usage records neither journaled nor queued: lost. Must stay 0.
# TYPE switchyard_meter_records_lost_total counter
switchyard_meter_records_lost_total 0
# HELP switchyard_meter_records_spilled_total Usage records kept only in the journal for a while (full queue or memory bound), read back later.
# TYPE switchyard_meter_records_spilled_total counter
switchyard_meter_records_spilled_total 2
# HELP switchyard_meter_write_failures_total Failed batch writes of usage records (retried).
# TYPE switchyard_meter_write_failures_total counter
switchyard_meter_write_failures_total 1
# HELP switchyard_deployment_cooling 1 while the deployment is cooling down after failures or upstream rate limiting, else 0.
# TYPE switchyard_deployment_cooling gauge
switchyard_deployment_cooling{deployment="east/b"} 0
switchyard_deployment_cooling{deployment="openai/a"} 1
# HELP switchyard_key_cache_lookups_total API key look-ups by whether the in-memory cache answered (hit) or the database was asked (miss).
# TYPE switchyard_key_cache_lookups_total counter
switchyard_key_cache_lookups_total{result="hit"} 90
switchyard_key_cache_lookups_total{result="miss"} 10
# HELP switchyard_in_flight_requests Requests being served on the API listener.
# TYPE switchyard_in_flight_requests gauge
switchyard_in_flight_requests 7
# HELP switchyard_in_flight_streams Streamed answers being relayed to clients.
# TYPE switchyard_in_flight_streams gauge
switchyard_in_flight_streams 2
`
	names := []string{"switchyard_meter_queue_depth", "switchyard_meter_journal_backlog_records", "switchyard_meter_journal_bytes",
		"switchyard_meter_records_written_total", "switchyard_meter_records_lost_total", "switchyard_meter_records_spilled_total",
		"switchyard_meter_write_failures_total", "switchyard_deployment_cooling", "switchyard_key_cache_lookups_total",
		"switchyard_in_flight_requests", "switchyard_in_flight_streams"}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

// TestLint runs client_golang's linter (the checks of promtool check
// metrics) over every metric, each with a series.
func TestLint(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "v1.2.3", Sources: metrics.Sources{
		Meter:            func() metrics.MeterStats { return metrics.MeterStats{} },
		Deployments:      func() []metrics.Deployment { return []metrics.Deployment{{Key: "openai/a"}} },
		KeyCache:         func() (int64, int64) { return 0, 0 },
		InFlightRequests: func() int64 { return 0 },
		InFlightStreams:  func() int64 { return 0 },
	}})
	everyEvent(m)
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	n, err := testutil.GatherAndCount(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Errorf("gathered %d series, want the gateway's, the Go runtime's and the process's", n)
	}
}

func TestBuildInfo(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "v1.2.3"})
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "switchyard_build_info" {
			continue
		}
		labels := map[string]string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["version"] != "v1.2.3" || !strings.HasPrefix(labels["goversion"], "go") || labels["revision"] == "" {
			t.Errorf("build info labels %v", labels)
		}
		if v := f.GetMetric()[0].GetGauge().GetValue(); v != 1 {
			t.Errorf("build info = %v, want 1", v)
		}
		return
	}
	t.Error("no switchyard_build_info")
}

// everyEvent feeds m one of each event.
func everyEvent(m *metrics.Metrics) {
	m.Request(chat)
	m.HTTPRequest("GET /healthz", 200)
	m.Retry("gpt-a", "openai/a")
	m.Fallback("gpt-a", "gpt-b")
	m.UpstreamError("openai", "openai/a", "timeout")
	m.LimitRefused("tpm")
	m.DBCall("key_lookup", time.Now())
	m.RedisCall("evalsha", time.Millisecond)
}
