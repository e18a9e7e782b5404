package app_test

import (
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// scrape is one /metrics answer, parsed.
type scrape struct {
	t    *testing.T
	fams map[string]*dto.MetricFamily
	text string
}

// getMetrics scrapes url with the bearer token (none when "") and fails
// the test unless it answers 200.
func getMetrics(t *testing.T, url, token string) scrape {
	t.Helper()
	resp := metricsGet(t, url, token)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, raw)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("parse the scrape: %v\n%s", err, raw)
	}
	return scrape{t: t, fams: fams, text: string(raw)}
}

func metricsGet(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// value returns the sum of name's series whose labels include want
// (a histogram's: its sample count), and how many series matched.
func (s scrape) value(name string, want map[string]string) (float64, int) {
	sum, n := 0.0, 0
	for _, m := range s.fams[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if !match {
			continue
		}
		n++
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum, n
}

// labelValues returns the values name's series have for label.
func (s scrape) labelValues(name, label string) []string {
	var out []string
	for _, m := range s.fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && !slices.Contains(out, l.GetValue()) {
				out = append(out, l.GetValue())
			}
		}
	}
	slices.Sort(out)
	return out
}

func metricsOn(perAccount bool) func(*config.Config) {
	return func(c *config.Config) { c.Metrics.Enabled, c.Metrics.PerAccount = true, perAccount }
}

// Issue 17: a chat request, a 401, a 404 and a 429 show in /metrics with
// the labels they should have: bounded, and no account or key IDs.
func TestMetricsTraffic(t *testing.T) {
	l := startLimited(t, nil, fakeopenai.Options{}, metricsOn(false))
	key, keyID, acctID := l.limitedKey(t, "metrics@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr(int64(1))})
	other, _ := l.newKey(t, "metrics@example.com")
	body := tokensBody("count me", 20, false)
	for _, c := range []struct {
		key, body string
		want      int
	}{
		{key, body, 200},
		{key, body, 429}, // the key's 1 RPM
		{"sk-switchyard-not-a-key", body, 401},
		{other, strings.Replace(body, "gpt-4o-mini", "made-up-model-xyz", 1), 404},
	} {
		if resp, raw := l.post(t, c.key, c.body); resp.StatusCode != c.want {
			t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, raw)
		}
	}
	s := getMetrics(t, l.URL+"/metrics", "")
	// The listener counts a request once its answer has gone (issue 18):
	// the chat answered 200 may have reached the client first.
	waitFor(t, 10*time.Second, "the usage records written and the answered chat counted", func() bool {
		s = getMetrics(t, l.URL+"/metrics", "")
		n, _ := s.value("switchyard_meter_records_written_total", nil)
		ok, _ := s.value("switchyard_http_requests_total", map[string]string{"route": "POST /v1/chat/completions", "status_class": "2xx"})
		return n == 2 && ok == 1
	})
	chat := map[string]string{"endpoint": "chat.completions", "model": "gpt-4o-mini", "provider": "openai"}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"switchyard_requests_total", with(chat, "status_class", "2xx"), 1},
		{"switchyard_requests_total", with(chat, "status_class", "4xx"), 1},
		{"switchyard_http_requests_total", map[string]string{"route": "POST /v1/chat/completions", "status_class": "2xx"}, 1},
		{"switchyard_http_requests_total", map[string]string{"route": "POST /v1/chat/completions", "status_class": "4xx"}, 3},
		{"switchyard_limit_refusals_total", map[string]string{"kind": "rpm"}, 1},
		{"switchyard_request_duration_seconds", map[string]string{"endpoint": "chat.completions", "model": "gpt-4o-mini"}, 2},
		{"switchyard_meter_records_lost_total", nil, 0},
		{"switchyard_build_info", nil, 1},
	}
	for _, c := range checks {
		if got, n := s.value(c.name, c.labels); got != c.want || n == 0 {
			t.Errorf("%s%v = %v over %d series, want %v", c.name, c.labels, got, n, c.want)
		}
	}
	for _, c := range []struct{ name, label string }{
		{"switchyard_tokens_total", "kind"}, {"switchyard_cost_usd_total", "model"},
		{"switchyard_key_cache_lookups_total", "result"}, {"switchyard_db_call_duration_seconds", "op"},
	} {
		if v, _ := s.value(c.name, nil); v <= 0 {
			t.Errorf("%s: %v, want more than 0 (%s %v)", c.name, v, c.label, s.labelValues(c.name, c.label))
		}
	}
	if v, _ := s.value("switchyard_in_flight_requests", nil); v < 1 {
		t.Errorf("in flight during the scrape: %v, want at least the scrape", v)
	}
	// Bounded labels: models the table serves, never what a client
	// typed, and no IDs.
	if got := s.labelValues("switchyard_requests_total", "model"); !slices.Equal(got, []string{"gpt-4o-mini"}) {
		t.Errorf("model labels %v", got)
	}
	for _, secret := range []string{"made-up-model-xyz", keyID, acctID, key} {
		if strings.Contains(s.text, secret) {
			t.Errorf("the scrape names %q", secret)
		}
	}
	if got := s.labelValues("switchyard_requests_total", "account"); got != nil {
		t.Errorf("account labels %v without per_account", got)
	}
}

func TestMetricsPerAccount(t *testing.T) {
	l := startLimited(t, nil, fakeopenai.Options{}, metricsOn(true))
	key, _, acctID := l.limitedKey(t, "per-account@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr(int64(100))})
	if resp, raw := l.post(t, key, tokensBody("hi", 5, true)); resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	s := getMetrics(t, l.URL+"/metrics", "")
	for _, name := range []string{"switchyard_requests_total", "switchyard_tokens_total", "switchyard_cost_usd_total"} {
		if got := s.labelValues(name, "account"); !slices.Equal(got, []string{acctID}) {
			t.Errorf("%s account labels %v, want [%s]", name, got, acctID)
		}
	}
	if n, _ := s.value("switchyard_time_to_first_byte_seconds", map[string]string{"model": "gpt-4o-mini"}); n != 1 {
		t.Errorf("time to first byte samples: %v, want 1 (the stream)", n)
	}
}

// A listener of its own, behind a bearer token; the API's listener then
// has no /metrics, and neither has a gateway with metrics off.
func TestMetricsListener(t *testing.T) {
	g := startWith(t, storetest.SQLiteURL(t), nil, func(c *config.Config) {
		c.Metrics.Listen, c.Metrics.BearerToken = "127.0.0.1:0", "scrape-secret"
	})
	url := "http://" + g.App.MetricsAddr().String() + "/metrics"
	for _, c := range []struct {
		url, token string
		want       int
	}{
		{url, "", 401},
		{url, "scrape-secre", 401},
		{url, "scrape-secret", 200},
		{g.URL + "/metrics", "scrape-secret", 404},
	} {
		resp := metricsGet(t, c.url, c.token)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s with %q: %d, want %d", c.url, c.token, resp.StatusCode, c.want)
		}
	}
	s := getMetrics(t, url, "scrape-secret")
	if n, _ := s.value("switchyard_http_requests_total", map[string]string{"route": "GET /metrics", "status_class": "4xx"}); n != 2 {
		t.Errorf("refused scrapes counted %v, want 2", n)
	}
	off := startWith(t, storetest.SQLiteURL(t), nil, nil)
	if off.App.MetricsAddr() != nil {
		t.Error("a metrics listener with metrics off")
	}
	resp := metricsGet(t, off.URL+"/metrics", "")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/metrics with metrics off: %d, want 404", resp.StatusCode)
	}
}

// With Redis, its commands are timed by name.
func TestMetricsRedis(t *testing.T) {
	url := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: Redis call timings are not tested")
	}
	l := startLimited(t, map[string]string{"SWITCHYARD_REDIS_URL": url}, fakeopenai.Options{}, metricsOn(false))
	key, _, _ := l.limitedKey(t, "redis-metrics@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr(int64(100))})
	if resp, raw := l.post(t, key, tokensBody("hi", 5, false)); resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	s := getMetrics(t, l.URL+"/metrics", "")
	if n, _ := s.value("switchyard_redis_call_duration_seconds", nil); n == 0 {
		t.Errorf("no Redis call timed; ops %v", s.labelValues("switchyard_redis_call_duration_seconds", "op"))
	}
	t.Logf("Redis ops timed: %v", s.labelValues("switchyard_redis_call_duration_seconds", "op"))
}
