package metrics

import "github.com/prometheus/client_golang/prometheus"

// Sources are the components' own counters, read when Prometheus scrapes
// rather than fed on the request path. A nil field's metrics are left
// out.
type Sources struct {
	// Meter returns the usage meter's counters; nil when metering is off.
	Meter func() MeterStats
	// Deployments returns each configured deployment's health.
	Deployments func() []Deployment
	// KeyCache returns the API key cache's hits and misses so far.
	KeyCache func() (hits, misses int64)
	// InFlightRequests returns the API listener's requests being served.
	InFlightRequests func() int64
	// InFlightStreams returns the streamed answers being relayed.
	InFlightStreams func() int64
}

// MeterStats are the usage meter's counters.
type MeterStats struct {
	// Queued are the records waiting for the writer.
	Queued int64
	// BacklogRecords are the journaled records not yet known to be in
	// the database; BacklogBytes the journal's size.
	BacklogRecords, BacklogBytes int64
	// Written counts the records the writer inserted; Lost those neither
	// journaled nor queued (it must stay 0); Spilled those kept only in
	// the journal for a while; WriteFailures the failed batch writes.
	Written, Lost, Spilled, WriteFailures int64
}

// Deployment is one deployment's health.
type Deployment struct {
	Key     string // "provider/upstream_id"
	Cooling bool
}

func (s Sources) register(reg *prometheus.Registry) {
	if s.Meter != nil {
		reg.MustRegister(meterCollector(s.Meter))
	}
	if s.Deployments != nil {
		reg.MustRegister(coolingCollector(s.Deployments))
	}
	if s.KeyCache != nil {
		reg.MustRegister(keyCacheCollector(s.KeyCache))
	}
	if s.InFlightRequests != nil {
		reg.MustRegister(gaugeFunc("in_flight_requests", "Requests being served on the API listener.", s.InFlightRequests))
	}
	if s.InFlightStreams != nil {
		reg.MustRegister(gaugeFunc("in_flight_streams", "Streamed answers being relayed to clients.", s.InFlightStreams))
	}
}

func gaugeFunc(name, help string, fn func() int64) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help},
		func() float64 { return float64(fn()) })
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
}

// collectorFunc is a Collector of fixed descriptions whose values one
// function reads.
type collectorFunc struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// meterCollector reads the meter's counters once per scrape.
func meterCollector(stats func() MeterStats) prometheus.Collector {
	queue := desc("meter_queue_depth", "Usage records waiting for the writer.")
	backlog := desc("meter_journal_backlog_records", "Journaled usage records not yet known to be in the database.")
	bytes := desc("meter_journal_bytes", "Size of the usage journal's segments on disk.")
	written := desc("meter_records_written_total", "Usage records the writer inserted into the database.")
	lost := desc("meter_records_lost_total", "Usage records neither journaled nor queued: lost. Must stay 0.")
	spilled := desc("meter_records_spilled_total", "Usage records kept only in the journal for a while (full queue or memory bound), read back later.")
	failures := desc("meter_write_failures_total", "Failed batch writes of usage records (retried).")
	return collectorFunc{
		descs: []*prometheus.Desc{queue, backlog, bytes, written, lost, spilled, failures},
		collect: func(ch chan<- prometheus.Metric) {
			s := stats()
			ch <- prometheus.MustNewConstMetric(queue, prometheus.GaugeValue, float64(s.Queued))
			ch <- prometheus.MustNewConstMetric(backlog, prometheus.GaugeValue, float64(s.BacklogRecords))
			ch <- prometheus.MustNewConstMetric(bytes, prometheus.GaugeValue, float64(s.BacklogBytes))
			ch <- prometheus.MustNewConstMetric(written, prometheus.CounterValue, float64(s.Written))
			ch <- prometheus.MustNewConstMetric(lost, prometheus.CounterValue, float64(s.Lost))
			ch <- prometheus.MustNewConstMetric(spilled, prometheus.CounterValue, float64(s.Spilled))
			ch <- prometheus.MustNewConstMetric(failures, prometheus.CounterValue, float64(s.WriteFailures))
		},
	}
}

// coolingCollector reads whether each deployment is cooling down; a key
// listed twice is reported once.
func coolingCollector(deployments func() []Deployment) prometheus.Collector {
	cooling := desc("deployment_cooling", "1 while the deployment is cooling down after failures or upstream rate limiting, else 0.", "deployment")
	return collectorFunc{
		descs: []*prometheus.Desc{cooling},
		collect: func(ch chan<- prometheus.Metric) {
			seen := map[string]bool{}
			for _, d := range deployments() {
				if seen[d.Key] {
					continue
				}
				seen[d.Key] = true
				v := 0.0
				if d.Cooling {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(cooling, prometheus.GaugeValue, v, d.Key)
			}
		},
	}
}

// keyCacheCollector reads the API key cache's hits and misses.
func keyCacheCollector(read func() (hits, misses int64)) prometheus.Collector {
	lookups := desc("key_cache_lookups_total", "API key look-ups by whether the in-memory cache answered (hit) or the database was asked (miss).", "result")
	return collectorFunc{
		descs: []*prometheus.Desc{lookups},
		collect: func(ch chan<- prometheus.Metric) {
			hits, misses := read()
			ch <- prometheus.MustNewConstMetric(lookups, prometheus.CounterValue, float64(hits), "hit")
			ch <- prometheus.MustNewConstMetric(lookups, prometheus.CounterValue, float64(misses), "miss")
		},
	}
}
