package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// hookReceiver keeps every webhook POST it gets.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, b)
		h.sigs = append(h.sigs, r.Header.Get(alerts.SignatureHeader))
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

// mailReceiver is an SMTP server on loopback that counts messages.
type mailReceiver struct {
	port int
	mu   sync.Mutex
	msgs []string
}

func newMailReceiver(t *testing.T) *mailReceiver {
	m := &mailReceiver{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{m: m}, nil }))
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.port = l.Addr().(*net.TCPAddr).Port
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(l) }()
	// Close the listener too: go-smtp's Close misses one that Serve has
	// not registered yet.
	t.Cleanup(func() { srv.Close(); l.Close(); <-done })
	return m
}

func (m *mailReceiver) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.msgs)
}

type mailSession struct{ m *mailReceiver }

func (s *mailSession) Reset()                                    {}
func (s *mailSession) Logout() error                             { return nil }
func (s *mailSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error { return nil }
func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.m.mu.Lock()
	s.m.msgs = append(s.m.msgs, string(b))
	s.m.mu.Unlock()
	return err
}

// alertConfig lets webhooks reach loopback and sends email to mail.
func alertConfig(mail *mailReceiver) func(*config.Config) {
	return func(c *config.Config) {
		c.Alerts.WebhookAllowPrivate = true
		c.Alerts.SMTP = config.SMTP{Host: "127.0.0.1", Port: mail.port, From: "Switchyard <alerts@switchyard.test>", TLS: "none"}
	}
}

// TestAlertReachesWebhookAndEmailOnce: many requests push an account's
// spend over a threshold; one signed webhook and one email arrive.
func TestAlertReachesWebhookAndEmailOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		up := fakeopenai.Start(fakeopenai.Options{})
		t.Cleanup(up.Close)
		hook, mail := newHookReceiver(t), newMailReceiver(t)
		env := map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}
		g := startWith(t, b.URL, env, alertConfig(mail))
		testAlertOnce(t, []*gateway{g}, hook, mail)
	})
}

// TestAlertOnceAcrossReplicas: two gateways on one PostgreSQL and one
// Redis; the crossing is seen once, the alert delivered once.
func TestAlertOnceAcrossReplicas(t *testing.T) {
	redisURL := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: the replica test needs Redis")
	}
	pg := storetest.PostgresURL(t)
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	hook, mail := newHookReceiver(t), newMailReceiver(t)
	env := map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key", "SWITCHYARD_REDIS_URL": redisURL}
	a := startWith(t, pg, env, alertConfig(mail))
	b := startWith(t, pg, env, alertConfig(mail))
	testAlertOnce(t, []*gateway{a, b}, hook, mail)
}

func testAlertOnce(t *testing.T, gs []*gateway, hook *hookReceiver, mail *mailReceiver) {
	t.Helper()
	ctx := context.Background()
	key, _ := gs[0].newKey(t, "alerts@example.com")
	acct, _ := gs[0].Store.AccountByEmail(ctx, "alerts@example.com")
	// gpt-4o-mini answers of the fake cost about 9 micro-dollars each.
	rule, err := gs[0].Store.AddAlertRule(ctx, alerts.Rule{AccountID: acct.ID, Threshold: 30 * usd.Micro,
		WebhookURL: hook.URL + "/hook", Email: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := gs[0].Store.AddAlertRule(ctx, alerts.Rule{AccountID: acct.ID, Threshold: 1000 * usd.USD, Email: "never@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing to wait for: no replica has served the account yet, so none
	// has its rules cached; each loads them on its first request.
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	var wg sync.WaitGroup
	for i := range 40 {
		g := gs[i%len(gs)]
		wg.Go(func() {
			if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "hello", i%2 == 0)); resp.StatusCode != 200 {
				t.Errorf("status %d: %s", resp.StatusCode, raw)
			}
		})
	}
	wg.Wait()
	waitFor(t, 10*time.Second, "a webhook and an email", func() bool { return hook.count() >= 1 && mail.count() >= 1 })
	// Nothing to wait for: a window on purpose, for a duplicate to show
	// up if there is one (deliveries are retried within a second).
	time.Sleep(1500 * time.Millisecond)
	if hook.count() != 1 || mail.count() != 1 {
		t.Fatalf("webhooks %d, emails %d; want exactly one each", hook.count(), mail.count())
	}
	hook.mu.Lock()
	body, sig := hook.bodies[0], hook.sigs[0]
	hook.mu.Unlock()
	if err := alerts.Verify(rule.WebhookSecret, sig, body, time.Minute, time.Now()); err != nil {
		t.Errorf("webhook signature: %v (header %q)", err, sig)
	}
	if !strings.Contains(string(body), rule.ID) || !strings.Contains(string(body), `"threshold_usd":"0.00003"`) {
		t.Errorf("webhook body %s", body)
	}
	if msg := mail.msgs[0]; !strings.Contains(msg, "To: <owner@example.com>") || !strings.Contains(msg, "Subject: ") {
		t.Errorf("email:\n%s", msg)
	}
	hist, err := gs[0].Store.AlertHistory(ctx, acct.ID, 10)
	if err != nil || len(hist) != 1 || hist[0].Event.RuleID != rule.ID || hist[0].Event.RuleID == other.ID {
		t.Fatalf("history %+v, %v", hist, err)
	}
	for _, d := range hist[0].Deliveries {
		if d.Status != alerts.StatusDelivered {
			t.Errorf("delivery %+v", d)
		}
	}
	spent, _, _ := gs[0].Store.MonthSpend(ctx, acct.ID, "", time.Now().UTC().Format("2006-01"))
	if hist[0].Event.Spend < rule.Threshold || spent < rule.Threshold {
		t.Errorf("fired at %v, month spend %v, threshold %v", hist[0].Event.Spend, spent, rule.Threshold)
	}
}

// TestBudgetWithRedis: the budget check of a gateway using Redis.
func TestBudgetWithRedis(t *testing.T) {
	redisURL := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: Redis budget test skipped")
	}
	testBudget(t, storetest.SQLiteURL(t), map[string]string{"SWITCHYARD_REDIS_URL": redisURL})
}
