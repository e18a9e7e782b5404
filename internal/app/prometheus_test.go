package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/config"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// prometheusTools returns the paths of Debian's prometheus and promtool.
// It skips the test, saying why, when they are not on PATH, unless
// SWITCHYARD_TEST_PROMETHEUS is set (as .ci/run sets it): then their
// absence fails it.
func prometheusTools(t *testing.T) (prometheus, promtool string) {
	t.Helper()
	p, err1 := exec.LookPath("prometheus")
	pt, err2 := exec.LookPath("promtool")
	if err1 == nil && err2 == nil {
		return p, pt
	}
	if os.Getenv("SWITCHYARD_TEST_PROMETHEUS") != "" {
		t.Fatalf("SWITCHYARD_TEST_PROMETHEUS is set but prometheus or promtool is missing: %v, %v (apt-get install prometheus)", err1, err2)
	}
	t.Skip("prometheus and promtool are not on PATH (apt-get install prometheus): the real Prometheus scrape is not tested")
	return "", ""
}

// Issue 17: promtool accepts the gateway's exposition, and a real
// Prometheus scraping the metrics' own listener (with the bearer token)
// reads switchyard_requests_total back after traffic.
func TestPrometheusScrape(t *testing.T) {
	prom, promtool := prometheusTools(t)
	const token = "prometheus-scrape-token"
	l := startLimited(t, nil, fakeopenai.Options{}, func(c *config.Config) {
		c.Metrics.Listen, c.Metrics.BearerToken = "127.0.0.1:0", token
	})
	key, _ := l.newKey(t, "prometheus@example.com")
	for _, stream := range []bool{false, true, false} {
		if resp, raw := l.post(t, key, tokensBody("scrape me", 10, stream)); resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, raw)
		}
	}
	l.post(t, "sk-switchyard-wrong", tokensBody("no", 1, false))
	target := l.App.MetricsAddr().String()

	t.Run("promtool check metrics", func(t *testing.T) {
		resp := metricsGet(t, "http://"+target+"/metrics", token)
		text, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(text)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	})
	t.Run("prometheus", func(t *testing.T) {
		api := startPrometheus(t, prom, target, token)
		want := map[string]string{"endpoint": "chat.completions", "model": "gpt-4o-mini", "provider": "openai",
			"status_class": "2xx", "job": "switchyard"}
		var last string
		waitFor(t, 60*time.Second, "Prometheus to have scraped switchyard_requests_total", func() bool {
			series, raw := query(t, api, "switchyard_requests_total")
			last = raw
			for _, s := range series {
				if labelsInclude(s.Metric, want) && len(s.Value) == 2 && s.Value[1] == "3" {
					return true
				}
			}
			return false
		})
		t.Logf("Prometheus answered: %s", last)
	})
}

// startPrometheus runs prometheus on a free loopback port, scraping
// target's /metrics every second with the bearer token, its storage in a
// temporary directory, and returns its URL. It stops with the test.
func startPrometheus(t *testing.T, bin, target, token string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: switchyard
    scrape_interval: 1s
    scrape_timeout: 1s
    authorization:
      credentials: %q
    static_configs:
      - targets: [%q]
`, token, target)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus logs:\n%s", logs.String())
		}
	})
	api := "http://" + addr
	waitFor(t, 30*time.Second, "Prometheus to be ready", func() bool {
		resp, err := http.Get(api + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return api
}

// series is one sample of a Prometheus instant query's answer.
type series struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"` // [time, "value"]
}

// query runs an instant query through Prometheus's HTTP API and returns
// its series and the raw answer.
func query(t *testing.T, api, q string) ([]series, string) {
	t.Helper()
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []series `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, raw)
	}
	return body.Data.Result, strings.TrimSpace(string(raw))
}

func labelsInclude(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
