package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/switchyard-gw/switchyard/internal/metrics"
)

// known is the routing table of the tests: two models.
func known(id string) bool { return id == "gpt-a" || id == "gpt-b" }

// chat is a streamed chat request to gpt-a that cost 3 µUSD.
var chat = metrics.Request{Endpoint: "chat.completions", Model: "gpt-a", Provider: "openai", Deployment: "openai/gpt-a-2026",
	Account: "acct_1", Status: 200, Latency: 1500 * time.Millisecond, FirstByte: 20 * time.Millisecond,
	InputTokens: 100, OutputTokens: 40, CachedTokens: 60, ReasoningTokens: 10, CostPicoUSD: 3_000_000}

func TestRequest(t *testing.T) {
	tests := []struct {
		name       string
		perAccount bool
		reqs       []metrics.Request
		want       string
	}{
		{"counted by labels", false, []metrics.Request{chat, chat, {Endpoint: "chat.completions", Model: "gpt-b", Provider: "openai", Status: 429}}, `
# HELP switchyard_requests_total Model requests by the endpoint, the model that answered (or was tried last), its provider and deployment, and the class of the status the client got.
# TYPE switchyard_requests_total counter
switchyard_requests_total{deployment="none",endpoint="chat.completions",model="gpt-b",provider="openai",status_class="4xx"} 1
switchyard_requests_total{deployment="openai/gpt-a-2026",endpoint="chat.completions",model="gpt-a",provider="openai",status_class="2xx"} 2
# HELP switchyard_tokens_total Tokens of model requests by kind: input (cached ones included), output (reasoning ones included), cached, reasoning.
# TYPE switchyard_tokens_total counter
switchyard_tokens_total{kind="cached",model="gpt-a"} 120
switchyard_tokens_total{kind="cached",model="gpt-b"} 0
switchyard_tokens_total{kind="input",model="gpt-a"} 200
switchyard_tokens_total{kind="input",model="gpt-b"} 0
switchyard_tokens_total{kind="output",model="gpt-a"} 80
switchyard_tokens_total{kind="output",model="gpt-b"} 0
switchyard_tokens_total{kind="reasoning",model="gpt-a"} 20
switchyard_tokens_total{kind="reasoning",model="gpt-b"} 0
# HELP switchyard_cost_usd_total Cost of model requests in US dollars, at the catalogue's prices.
# TYPE switchyard_cost_usd_total counter
switchyard_cost_usd_total{model="gpt-a"} 6e-06
switchyard_cost_usd_total{model="gpt-b"} 0
`},
		// Issue 17: no account ID is a label unless asked for.
		{"per account", true, []metrics.Request{chat}, `
# HELP switchyard_requests_total Model requests by the endpoint, the model that answered (or was tried last), its provider and deployment, and the class of the status the client got.
# TYPE switchyard_requests_total counter
switchyard_requests_total{account="acct_1",deployment="openai/gpt-a-2026",endpoint="chat.completions",model="gpt-a",provider="openai",status_class="2xx"} 1
# HELP switchyard_tokens_total Tokens of model requests by kind: input (cached ones included), output (reasoning ones included), cached, reasoning.
# TYPE switchyard_tokens_total counter
switchyard_tokens_total{account="acct_1",kind="cached",model="gpt-a"} 60
switchyard_tokens_total{account="acct_1",kind="input",model="gpt-a"} 100
switchyard_tokens_total{account="acct_1",kind="output",model="gpt-a"} 40
switchyard_tokens_total{account="acct_1",kind="reasoning",model="gpt-a"} 10
# HELP switchyard_cost_usd_total Cost of model requests in US dollars, at the catalogue's prices.
# TYPE switchyard_cost_usd_total counter
switchyard_cost_usd_total{account="acct_1",model="gpt-a"} 3e-06
`},
		{"unknown model is other", false, []metrics.Request{{Endpoint: "embeddings", Model: "made-up", Provider: "openai", Deployment: "openai/x", Status: 502}}, `
# HELP switchyard_requests_total Model requests by the endpoint, the model that answered (or was tried last), its provider and deployment, and the class of the status the client got.
# TYPE switchyard_requests_total counter
switchyard_requests_total{deployment="openai/x",endpoint="embeddings",model="other",provider="openai",status_class="5xx"} 1
# HELP switchyard_tokens_total Tokens of model requests by kind: input (cached ones included), output (reasoning ones included), cached, reasoning.
# TYPE switchyard_tokens_total counter
switchyard_tokens_total{kind="cached",model="other"} 0
switchyard_tokens_total{kind="input",model="other"} 0
switchyard_tokens_total{kind="output",model="other"} 0
switchyard_tokens_total{kind="reasoning",model="other"} 0
# HELP switchyard_cost_usd_total Cost of model requests in US dollars, at the catalogue's prices.
# TYPE switchyard_cost_usd_total counter
switchyard_cost_usd_total{model="other"} 0
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metrics.New(metrics.Options{PerAccount: tt.perAccount, Known: known})
			for _, r := range tt.reqs {
				m.Request(r)
			}
			err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(tt.want),
				"switchyard_requests_total", "switchyard_tokens_total", "switchyard_cost_usd_total")
			if err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLatencyHistograms(t *testing.T) {
	m := metrics.New(metrics.Options{Known: known})
	m.Request(chat)
	plain := chat
	plain.FirstByte = 0
	m.Request(plain)
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{} // name → count, sum
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			if h := mt.GetHistogram(); h != nil && strings.HasPrefix(f.GetName(), "switchyard_") {
				got[f.GetName()] = [2]float64{float64(h.GetSampleCount()), h.GetSampleSum()}
				if n := len(h.GetBucket()); n != 16 {
					t.Errorf("%s has %d buckets, want 16", f.GetName(), n)
				}
			}
		}
	}
	want := map[string][2]float64{
		"switchyard_request_duration_seconds": {2, 3},
		// Only the streamed answer has a first byte.
		"switchyard_time_to_first_byte_seconds": {1, 0.02},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("histograms (-want +got):\n%s", diff)
	}
}

func TestEvents(t *testing.T) {
	m := metrics.New(metrics.Options{Known: known})
	m.HTTPRequest("POST /v1/chat/completions", 200)
	m.HTTPRequest("POST /v1/chat/completions", 401)
	m.HTTPRequest("", 404)
	m.HTTPRequest("GET /healthz", 0)
	m.Retry("gpt-a", "openai/gpt-a-2026")
	m.Fallback("gpt-a", "gpt-zzz")
	m.UpstreamError("openai", "openai/gpt-a-2026", "rate_limit")
	m.LimitRefused("rpm")
	m.LimitRefused("rpm")
	m.LimitRefused("budget")
	want := `
# HELP switchyard_http_requests_total HTTP requests on every listener by route pattern ("unmatched" for none) and status class.
# TYPE switchyard_http_requests_total counter
switchyard_http_requests_total{route="GET /healthz",status_class="other"} 1
switchyard_http_requests_total{route="POST /v1/chat/completions",status_class="2xx"} 1
switchyard_http_requests_total{route="POST /v1/chat/completions",status_class="4xx"} 1
switchyard_http_requests_total{route="unmatched",status_class="4xx"} 1
# HELP switchyard_retries_total Retries of a model's upstream call, by the deployment retried at.
# TYPE switchyard_retries_total counter
switchyard_retries_total{deployment="openai/gpt-a-2026",model="gpt-a"} 1
# HELP switchyard_fallbacks_total Turns from a model whose attempts failed to one of its fallbacks.
# TYPE switchyard_fallbacks_total counter
switchyard_fallbacks_total{from_model="gpt-a",to_model="other"} 1
# HELP switchyard_upstream_errors_total Failed upstream attempts by the class the gateway gave the failure.
# TYPE switchyard_upstream_errors_total counter
switchyard_upstream_errors_total{class="rate_limit",deployment="openai/gpt-a-2026",provider="openai"} 1
# HELP switchyard_limit_refusals_total Requests refused by a limit: rpm, tpm, budget, or rates_unavailable and budget_unavailable when the limits could not be checked (fail closed).
# TYPE switchyard_limit_refusals_total counter
switchyard_limit_refusals_total{kind="budget"} 1
switchyard_limit_refusals_total{kind="rpm"} 2
`
	err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "switchyard_http_requests_total",
		"switchyard_retries_total", "switchyard_fallbacks_total", "switchyard_upstream_errors_total", "switchyard_limit_refusals_total")
	if err != nil {
		t.Error(err)
	}
}
