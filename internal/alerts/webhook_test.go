package alerts_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/alerts"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// receiver is a webhook endpoint that answers with codes in turn (the last
// one thereafter) and keeps what it received.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	codes []int
	got   []received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, codes ...int) *receiver {
	rc := &receiver{codes: codes}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		if r.Method == http.MethodPost && r.URL.Path == "/hook" {
			rc.got = append(rc.got, received{r.Header.Clone(), body})
		}
		code := http.StatusOK
		if len(rc.codes) > 0 {
			code = rc.codes[0]
		}
		if len(rc.codes) > 1 {
			rc.codes = rc.codes[1:]
		}
		rc.mu.Unlock()
		if code >= 300 && code < 400 {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
		io.WriteString(w, strings.Repeat("x", 100<<10)) // more than is read
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// webhookRig is a store with one fired webhook alert and a worker.
type webhookRig struct {
	st  *fakeStore
	clk *clock
	w   *alerts.Worker
	ev  alerts.Event
}

func newWebhookRig(t *testing.T, url string, wopts alerts.WebhookOptions) *webhookRig {
	return newWebhookRigLog(t, url, wopts, quiet)
}

func newWebhookRigLog(t *testing.T, url string, wopts alerts.WebhookOptions, log *slog.Logger) *webhookRig {
	st, clk := newFakeStore(), newClock()
	rule := alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50), WebhookURL: url, WebhookSecret: "whsec_test"}
	st.addRule(rule)
	ev := alerts.Event{ID: "alev_test1", RuleID: "rule_a", AccountID: "acct_1", Period: "2026-11",
		Threshold: dollars(50), Spend: dollars(50) + 12*usdCents(1), CreatedAt: clk.Now()}
	if _, err := st.FireAlert(t.Context(), rule, ev); err != nil {
		t.Fatal(err)
	}
	wopts.Now = clk.Now
	wh := alerts.NewWebhook(wopts)
	t.Cleanup(wh.CloseIdleConnections)
	w := alerts.NewWorker(st, alerts.WorkerOptions{Webhook: wh, Now: clk.Now, Log: log})
	return &webhookRig{st: st, clk: clk, w: w, ev: ev}
}

func TestWebhookDelivers(t *testing.T) {
	rc := newReceiver(t)
	rig := newWebhookRig(t, rc.URL+"/hook", alerts.WebhookOptions{AllowedNetworks: loopback})
	rig.w.Poll(t.Context())
	rig.w.Poll(t.Context())

	d := rig.st.only(t)
	if d.Status != alerts.StatusDelivered || d.Attempts != 1 || !d.DeliveredAt.Equal(rig.clk.Now()) || d.LastError != "" {
		t.Errorf("delivery %+v", d)
	}
	reqs := rc.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	h := reqs[0].header
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Switchyard-Webhook/1", "X-Switchyard-Event-Id": "alev_test1"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if err := alerts.Verify("whsec_test", h.Get(alerts.SignatureHeader), reqs[0].body, 5*time.Minute, rig.clk.Now()); err != nil {
		t.Errorf("Verify: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(reqs[0].body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "alev_test1", "type": "billing_alert.threshold_reached", "created": float64(rig.clk.Now().Unix()),
		"account_id": "acct_1", "period": "2026-11", "threshold_usd": "50.00", "spend_usd": "50.12", "rule_id": "rule_a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"alev_1"}`)
	good := alerts.Sign("s3cret", now.Unix(), body)
	tests := []struct {
		name, secret, header string
		body                 []byte
		ok                   bool
	}{
		{"valid", "s3cret", good, body, true},
		{"second v1 matches", "s3cret", good + ",v1=00ff", body, true},
		{"tampered body", "s3cret", good, []byte(`{"id":"alev_2"}`), false},
		{"wrong secret", "other", good, body, false},
		{"too old", "s3cret", alerts.Sign("s3cret", now.Add(-10*time.Minute).Unix(), body), body, false},
		{"no timestamp", "s3cret", good[strings.Index(good, ",")+1:], body, false},
		{"not hex", "s3cret", "t=1800000000,v1=zz", body, false},
		{"empty", "s3cret", "", body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := alerts.Verify(tt.secret, tt.header, tt.body, 5*time.Minute, now)
			if (err == nil) != tt.ok {
				t.Fatalf("Verify = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, alerts.ErrSignature) {
				t.Errorf("error %v does not match ErrSignature", err)
			}
		})
	}
}

// TestWebhookRetries: two 500s then 200 → delivered on the third attempt,
// each one due only after its backoff on the fake clock.
func TestWebhookRetries(t *testing.T) {
	ctx := t.Context()
	rc := newReceiver(t, 500, 500, 200)
	rig := newWebhookRig(t, rc.URL+"/hook", alerts.WebhookOptions{AllowPrivate: true})
	start := rig.clk.Now()
	steps := []struct {
		advance  time.Duration
		requests int
		attempts int
		next     time.Duration // NextAttemptAt - start, while pending
	}{
		{0, 1, 1, 2 * time.Second},
		{time.Second, 1, 1, 2 * time.Second}, // not due yet
		{time.Second, 2, 2, 6 * time.Second},
		{3 * time.Second, 2, 2, 6 * time.Second},
		{time.Second, 3, 3, 0},
		{time.Hour, 3, 3, 0},
	}
	for i, s := range steps {
		rig.clk.Advance(s.advance)
		rig.w.Poll(ctx)
		d := rig.st.only(t)
		if got := len(rc.requests()); got != s.requests || d.Attempts != s.attempts {
			t.Fatalf("step %d: %d requests, %d attempts; want %d, %d", i, got, d.Attempts, s.requests, s.attempts)
		}
		if s.next != 0 && (d.Status != alerts.StatusPending || d.NextAttemptAt.Sub(start) != s.next || !strings.Contains(d.LastError, "500")) {
			t.Fatalf("step %d: delivery %+v, want pending until start+%s", i, d, s.next)
		}
	}
	if d := rig.st.only(t); d.Status != alerts.StatusDelivered || !d.DeliveredAt.Equal(start.Add(6*time.Second)) {
		t.Errorf("delivery %+v, want delivered at start+6s", d)
	}
}

func TestWebhookStatusClasses(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{200, alerts.StatusDelivered},
		{204, alerts.StatusDelivered},
		{302, alerts.StatusFailed},
		{400, alerts.StatusFailed},
		{401, alerts.StatusFailed},
		{404, alerts.StatusFailed},
		{408, alerts.StatusPending},
		{429, alerts.StatusPending},
		{500, alerts.StatusPending},
		{503, alerts.StatusPending},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.code), func(t *testing.T) {
			rc := newReceiver(t, tt.code)
			rig := newWebhookRig(t, rc.URL+"/hook", alerts.WebhookOptions{AllowedNetworks: loopback})
			rig.w.Poll(t.Context())
			d := rig.st.only(t)
			if d.Status != tt.want || d.Attempts != 1 || len(rc.requests()) != 1 {
				t.Errorf("delivery %+v after %d requests, want %s after 1", d, len(rc.requests()), tt.want)
			}
		})
	}
}

func TestWorkerGivesUp(t *testing.T) {
	ctx := t.Context()
	rc := newReceiver(t, 503)
	rig := newWebhookRig(t, rc.URL+"/hook", alerts.WebhookOptions{AllowedNetworks: loopback})
	for range 20 {
		rig.w.Poll(ctx)
		rig.clk.Advance(time.Hour)
	}
	d := rig.st.only(t)
	if d.Status != alerts.StatusFailed || d.Attempts != 8 || !strings.Contains(d.LastError, "503") || len(rc.requests()) != 8 {
		t.Errorf("delivery %+v after %d requests, want failed after 8", d, len(rc.requests()))
	}
}

func TestBackoff(t *testing.T) {
	w := alerts.NewWorker(newFakeStore(), alerts.WorkerOptions{Log: quiet})
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second,
		64 * time.Second, 128 * time.Second, 256 * time.Second, 512 * time.Second, 10 * time.Minute, 10 * time.Minute}
	var got []time.Duration
	for n := 1; n <= len(want); n++ {
		got = append(got, w.Backoff(n))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	if got := w.Backoff(1000); got != 10*time.Minute {
		t.Errorf("Backoff(1000) = %s", got)
	}
}

// TestWebhookGuardRefusesLoopback: without an allowance the guard refuses
// the receiver's loopback address, for good, and nothing reaches it.
func TestWebhookGuardRefusesLoopback(t *testing.T) {
	rc := newReceiver(t)
	for _, url := range []string{rc.URL + "/hook", strings.Replace(rc.URL, "127.0.0.1", "localhost", 1) + "/hook"} {
		rig := newWebhookRig(t, url, alerts.WebhookOptions{})
		rig.w.Poll(t.Context())
		d := rig.st.only(t)
		if d.Status != alerts.StatusFailed || d.Attempts != 1 || d.LastError != "address not allowed: webhooks reach only public addresses" {
			t.Errorf("%s: delivery %+v, want failed at once by the guard", url, d)
		}
	}
	if got := len(rc.requests()); got != 0 {
		t.Errorf("receiver got %d requests, want 0", got)
	}
}

func TestWebhookBadURL(t *testing.T) {
	for _, url := range []string{"ftp://example.com/x", "not a url", "http://"} {
		rig := newWebhookRig(t, url, alerts.WebhookOptions{})
		rig.w.Poll(t.Context())
		if d := rig.st.only(t); d.Status != alerts.StatusFailed {
			t.Errorf("%q: delivery %+v, want failed", url, d)
		}
	}
}

func TestGuard(t *testing.T) {
	internal := []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}
	tests := []struct {
		addr    string
		allowed []netip.Prefix
		ok      bool
	}{
		{"127.0.0.1", nil, false},
		{"127.8.9.10", nil, false},
		{"10.1.2.3", nil, false},
		{"172.16.5.4", nil, false},
		{"192.168.0.1", nil, false},
		{"169.254.169.254", nil, false},
		{"100.64.0.1", nil, false},
		{"100.127.255.254", nil, false},
		{"0.0.0.0", nil, false},
		{"0.1.2.3", nil, false},
		{"224.0.0.1", nil, false},
		{"255.255.255.255", nil, false},
		{"::1", nil, false},
		{"::", nil, false},
		{"fd00::1", nil, false},
		{"fc00::1", nil, false},
		{"fe80::1", nil, false},
		{"fe80::1%eth0", nil, false},
		{"ff02::1", nil, false},
		{"::ffff:10.0.0.1", nil, false},
		{"::ffff:127.0.0.1", nil, false},
		{"::ffff:169.254.169.254", nil, false},
		{"64:ff9b::7f00:1", nil, false},    // NAT64 of 127.0.0.1 (issue 13)
		{"64:ff9b::a9fe:a9fe", nil, false}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", nil, false},   // NAT64 of 8.8.8.8: still translated by a gateway
		{"64:ff9b:1::a00:1", nil, false},   // local-use NAT64
		{"64:ff9b:1:ffff::1", nil, false},
		{"64:ff9b::7f00:1", []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}, true},
		{"64:ff9c::1", nil, true},
		{"8.8.8.8", nil, true},
		{"1.1.1.1", nil, true},
		{"100.63.255.255", nil, true},
		{"100.128.0.1", nil, true},
		{"172.32.0.1", nil, true},
		{"2606:4700:4700::1111", nil, true},
		{"::ffff:8.8.8.8", nil, true},
		{"10.9.1.1", internal, true},
		{"::ffff:10.9.1.1", internal, true},
		{"10.8.1.1", internal, false},
		{"127.0.0.1", loopback, true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := alerts.CheckAddress(false, tt.allowed, netip.MustParseAddr(tt.addr))
			if (err == nil) != tt.ok {
				t.Fatalf("check = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, alerts.ErrAddressRefused) {
				t.Errorf("error %v does not match ErrAddressRefused", err)
			}
			// The operator reads the refusal: it names the config keys
			// (issue 13), not Go fields.
			if err != nil && (!strings.Contains(err.Error(), "alerts.webhook_allowed_networks") || strings.Contains(err.Error(), "AllowPrivate")) {
				t.Errorf("error %q does not name the config keys", err)
			}
			if err := alerts.CheckAddress(true, nil, netip.MustParseAddr(tt.addr)); err != nil {
				t.Errorf("AllowPrivate: %v", err)
			}
		})
	}
}
