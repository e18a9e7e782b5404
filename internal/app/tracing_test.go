package app_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/testing/fakeupstream"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// traceCase is one request of TestTraces, sent with a client's
// traceparent naming traceID and parent.
type traceCase struct {
	traceID, parent string
	body            string
}

func newTraceCase(body string) traceCase {
	return traceCase{traceID: randHex(16), parent: randHex(8), body: body}
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// send posts the case's body to the chat endpoint with its traceparent.
func (c traceCase) send(t *testing.T, g *gateway, key string) *http.Response {
	t.Helper()
	h := authJSON(key)
	h["traceparent"] = "00-" + c.traceID + "-" + c.parent + "-01"
	resp, eb, _ := do(t, "POST", g.URL+"/v1/chat/completions", h, c.body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, eb.Error)
	}
	return resp
}

// tracedGateway starts a gateway exporting its traces to rc, with one
// model of two deployments: east first, west when east fails.
func tracedGateway(t *testing.T, rc *otlpReceiver, east, west *fakeopenai.Server) *gateway {
	t.Helper()
	return startWith(t, storetest.SQLiteURL(t), nil, func(c *config.Config) {
		c.Tracing.Enabled, c.Tracing.Endpoint = true, rc.URL
		c.Limits.KeyRPM = 1000 // a reservation to trace
		c.Providers = append(c.Providers,
			config.Provider{Type: config.TypeOpenAI, Name: "east", BaseURL: east.URL, APIKey: "test-upstream-key"},
			config.Provider{Type: config.TypeOpenAI, Name: "west", BaseURL: west.URL, APIKey: "test-upstream-key"})
		c.Models.Add = append(c.Models.Add, config.ModelEntry{ID: "gpt-4o-mini", Deployments: []config.DeploymentEntry{
			{Provider: "east", UpstreamID: "gpt-4o-mini"}, {Provider: "west", UpstreamID: "gpt-4o-mini", Priority: 1}}})
	})
}

// TestTraces runs a gateway with tracing on against fake upstreams and
// reads back, through an OTLP/HTTP receiver, the spans of a chat request
// that arrives with a traceparent, of a streamed one, of one that is
// retried once, and of a request for no model: their names, attributes
// and parentage, the traceparent the upstreams got, and that no prompt
// or key is in any of them.
func TestTraces(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20") // read by the SDK's batcher: export at once
	rc := startReceiver(t)
	east := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(east.Close)
	west := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(west.Close)
	g := tracedGateway(t, rc, east, west)
	key, _ := g.newKey(t, "traces@example.com")
	secret := "the launch code is " + rand.Text()
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini", "max_tokens": 50, "temperature": 0.5,
		"messages": []map[string]string{{"role": "user", "content": secret}}})

	plain := newTraceCase(string(body))
	plain.send(t, g, key)
	checkUpstreamTrace(t, east.Last().Header, plain.traceID)
	stream := newTraceCase(chatBody("gpt-4o-mini", secret, true))
	stream.send(t, g, key)
	east.SetFaults(fakeupstream.Faults{Errors: []fakeupstream.ErrorFault{{Rate: 1, Status: 503}}})
	retry := newTraceCase(string(body))
	if resp := retry.send(t, g, key); resp.Header.Get("X-Switchyard-Attempts") != "2" {
		t.Fatalf("retried request: %s attempts, want 2", resp.Header.Get("X-Switchyard-Attempts"))
	}
	checkUpstreamTrace(t, east.Last().Header, retry.traceID)
	checkUpstreamTrace(t, west.Last().Header, retry.traceID)
	do(t, "GET", g.URL+"/v1/models", authJSON(key), "")

	all := map[string][]*tracepb.Span{}
	for name, c := range map[string]struct {
		tc    traceCase
		spans int
	}{"plain": {plain, 4}, "stream": {stream, 4}, "retry": {retry, 5}} {
		spans := rc.waitSpans(t, c.tc.traceID, c.spans)
		all[name] = spans
		checkTrace(t, name, c.tc, spans)
	}
	checkUpstreamParent(t, east.Requests(), all)
	checkAttempts(t, all["retry"])
	checkFirstByte(t, all["stream"])
	checkRoot(t, rc, "GET /v1/models")
	checkNoSecrets(t, rc, secret, key, "test-upstream-key")
}

// checkUpstreamTrace checks that an upstream request carried traceID in
// its traceparent.
func checkUpstreamTrace(t *testing.T, h http.Header, traceID string) {
	t.Helper()
	tp := strings.Split(h.Get("Traceparent"), "-")
	if len(tp) != 4 || tp[1] != traceID {
		t.Errorf("upstream traceparent %q, want trace %s", h.Get("Traceparent"), traceID)
	}
}

// checkTrace checks a chat request's spans: a SERVER span, child of the
// client's, with the request's attributes, over a CLIENT span per
// attempt, the limits' span and the meter's.
func checkTrace(t *testing.T, name string, tc traceCase, spans []*tracepb.Span) {
	t.Helper()
	srv := only(t, spans, tracepb.Span_SPAN_KIND_SERVER)
	if got := hex.EncodeToString(srv.ParentSpanId); got != tc.parent {
		t.Errorf("%s: server span's parent %s, want the client's %s", name, got, tc.parent)
	}
	a := attrs(srv.Attributes)
	want := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
		"gen_ai.provider.name": "openai", "http.request.method": "POST", "http.response.status_code": "200",
		"http.route": "/v1/chat/completions", "switchyard.deployment": "east/gpt-4o-mini", "switchyard.attempts": "1"}
	if name == "retry" {
		want["switchyard.deployment"], want["switchyard.attempts"] = "west/gpt-4o-mini", "2"
	}
	if name != "stream" {
		want["gen_ai.request.max_tokens"], want["gen_ai.request.temperature"] = "50", "0.5"
	}
	got := map[string]string{}
	for k := range want {
		got[k] = a[k]
	}
	if diff := cmp.Diff(want, got); diff != "" || srv.Name != "chat gpt-4o-mini" {
		t.Errorf("%s: server span %q (want \"chat gpt-4o-mini\"), attributes (-want +got):\n%s", name, srv.Name, diff)
	}
	for _, k := range []string{"gen_ai.response.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
		if a[k] == "" || a[k] == "0" {
			t.Errorf("%s: server span's %s is %q", name, k, a[k])
		}
	}
	if _, ok := a["error.type"]; ok {
		t.Errorf("%s: error.type %q on a request that succeeded", name, a["error.type"])
	}
	kinds := map[string]int{}
	for _, s := range spans {
		if s != srv {
			kinds[s.Name]++
			if string(s.ParentSpanId) != string(srv.SpanId) {
				t.Errorf("%s: span %q is not the server span's child", name, s.Name)
			}
		}
	}
	attempts := 1 + len(spans) - 4
	if diff := cmp.Diff(map[string]int{"chat gpt-4o-mini": attempts, "switchyard.limits": 1, "switchyard.meter.enqueue": 1}, kinds); diff != "" {
		t.Errorf("%s: child spans (-want +got):\n%s", name, diff)
	}
}

// only returns the one span of kind.
func only(t *testing.T, spans []*tracepb.Span, kind tracepb.Span_SpanKind) *tracepb.Span {
	t.Helper()
	var found []*tracepb.Span
	for _, s := range spans {
		if s.Kind == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans of kind %v, want 1: %v", len(found), kind, spanNames(spans))
	}
	return found[0]
}

// checkUpstreamParent checks that each upstream request's traceparent
// names the attempt span that made it.
func checkUpstreamParent(t *testing.T, reqs []fakeupstream.Request, traces map[string][]*tracepb.Span) {
	t.Helper()
	attempts := map[string]bool{} // trace-span of each CLIENT span
	for _, spans := range traces {
		for _, s := range spans {
			if s.Kind == tracepb.Span_SPAN_KIND_CLIENT {
				attempts[hex.EncodeToString(s.TraceId)+"-"+hex.EncodeToString(s.SpanId)] = true
			}
		}
	}
	n := 0
	for _, r := range reqs {
		tp := r.Header.Get("Traceparent")
		if len(tp) != 55 {
			t.Errorf("upstream request without a traceparent: %q", tp)
			continue
		}
		n++
		if !attempts[tp[3:52]] {
			t.Errorf("upstream traceparent %s names no attempt span", tp)
		}
	}
	if n == 0 {
		t.Error("no upstream request checked")
	}
}

// checkAttempts checks the attempt spans of the retried request: the
// first failed at east with a 503, the second answered at west.
func checkAttempts(t *testing.T, spans []*tracepb.Span) {
	t.Helper()
	got := map[string]map[string]string{}
	for _, s := range spans {
		if s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			continue
		}
		a := attrs(s.Attributes)
		got[a["switchyard.attempt"]] = map[string]string{"deployment": a["switchyard.deployment"], "status": a["http.response.status_code"],
			"error.type": a["error.type"], "span status": s.Status.GetCode().String(), "model": a["gen_ai.request.model"],
			"provider": a["gen_ai.provider.name"], "operation": a["gen_ai.operation.name"]}
	}
	want := map[string]map[string]string{
		"1": {"deployment": "east/gpt-4o-mini", "status": "503", "error.type": "unavailable", "span status": "STATUS_CODE_ERROR",
			"model": "gpt-4o-mini", "provider": "openai", "operation": "chat"},
		"2": {"deployment": "west/gpt-4o-mini", "status": "200", "error.type": "", "span status": "STATUS_CODE_UNSET",
			"model": "gpt-4o-mini", "provider": "openai", "operation": "chat"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempt spans (-want +got):\n%s", diff)
	}
}

// checkFirstByte checks that a stream's attempt span marks its first
// chunk with an event inside the span.
func checkFirstByte(t *testing.T, spans []*tracepb.Span) {
	t.Helper()
	s := only(t, spans, tracepb.Span_SPAN_KIND_CLIENT)
	for _, e := range s.Events {
		if e.Name == "first_byte" {
			if e.TimeUnixNano < s.StartTimeUnixNano || e.TimeUnixNano > s.EndTimeUnixNano {
				t.Errorf("first_byte at %d, outside its span [%d, %d]", e.TimeUnixNano, s.StartTimeUnixNano, s.EndTimeUnixNano)
			}
			return
		}
	}
	t.Errorf("stream attempt span has no first_byte event: %v", s.Events)
}

// checkRoot checks that a request without a traceparent has a root
// SERVER span, named for its method and route.
func checkRoot(t *testing.T, rc *otlpReceiver, name string) {
	t.Helper()
	s := rc.waitNamed(t, name)
	a := attrs(s.Attributes)
	if len(s.ParentSpanId) != 0 || s.Kind != tracepb.Span_SPAN_KIND_SERVER || a["http.route"] != "/v1/models" ||
		a["http.response.status_code"] != "200" || a["gen_ai.operation.name"] != "" {
		t.Errorf("%s: parent %x, kind %v, attributes %v", name, s.ParentSpanId, s.Kind, a)
	}
}

// checkNoSecrets checks that no span name, attribute or event holds any
// of secrets.
func checkNoSecrets(t *testing.T, rc *otlpReceiver, secrets ...string) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, s := range rc.spans {
		texts := []string{s.Name}
		for _, v := range attrs(s.Attributes) {
			texts = append(texts, v)
		}
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			for _, v := range attrs(e.Attributes) {
				texts = append(texts, v)
			}
		}
		for _, txt := range texts {
			for _, sec := range secrets {
				if strings.Contains(txt, sec) || strings.Contains(txt, "Bearer") {
					t.Errorf("span %q holds %q", s.Name, txt)
				}
			}
		}
	}
	if len(rc.services) == 0 || rc.services[0] != "switchyard" {
		t.Errorf("exports' service.name %v, want switchyard", rc.services)
	}
}
