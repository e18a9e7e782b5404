package alerts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// Run must end with its context.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestEndToEnd: two observers fed thousands of observations around the
// threshold, two workers, one webhook receiver and one SMTP server: one
// crossing yields exactly one POST and one email.
func TestEndToEnd(t *testing.T) {
	hook := newReceiver(t)
	mailer := newSMTPReceiver(t, nil)
	st := newFakeStore()
	st.addRule(alerts.Rule{ID: "rule_a", AccountID: "acct_1", Threshold: dollars(50),
		WebhookURL: hook.URL + "/hook", WebhookSecret: "whsec_e2e", Email: "ops@example.com"})

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	observers := startPipeline(t, ctx, &wg, st, mailer)

	var feeders sync.WaitGroup
	for g := range 8 {
		feeders.Go(func() {
			for i := range 2000 { // $40.00 → $59.99, one cent at a time
				observers[g%2].Observe("acct_1", "2026-11", dollars(40)+usd.Amount(i)*usd.Cent)
			}
		})
	}
	feeders.Wait()
	delivered := func() bool {
		for _, d := range st.deliveryList() {
			if d.Status != alerts.StatusDelivered {
				return false
			}
		}
		return len(st.deliveryList()) == 2
	}
	waitFor(t, "both deliveries", delivered)
	time.Sleep(100 * time.Millisecond) // time for a duplicate to show up
	cancel()
	wg.Wait()

	if got := len(st.eventList()); got != 1 {
		t.Errorf("%d events, want 1", got)
	}
	reqs := hook.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d webhook POSTs, want 1", len(reqs))
	}
	if err := alerts.Verify("whsec_e2e", reqs[0].header.Get(alerts.SignatureHeader), reqs[0].body, time.Minute, time.Now()); err != nil {
		t.Errorf("Verify: %v", err)
	}
	if msgs := mailer.messages(); len(msgs) != 1 || msgs[0].to[0] != "ops@example.com" {
		t.Errorf("emails %+v, want one to ops@example.com", msgs)
	}
}

// startPipeline starts two workers, emailing through mailer, and two
// observers kicking them, all owned by wg and stopped by ctx.
func startPipeline(t *testing.T, ctx context.Context, wg *sync.WaitGroup, st alerts.Store, mailer *smtpReceiver) []*alerts.Observer {
	var observers []*alerts.Observer
	for range 2 {
		wh := alerts.NewWebhook(alerts.WebhookOptions{AllowedNetworks: loopback})
		t.Cleanup(wh.CloseIdleConnections)
		w := alerts.NewWorker(st, alerts.WorkerOptions{Webhook: wh, Email: alerts.NewMailer(mailer.config(), alerts.MailerOptions{}),
			PollInterval: 20 * time.Millisecond, Log: quiet})
		o := alerts.NewObserver(st, alerts.ObserverOptions{Worker: w, Log: quiet})
		observers = append(observers, o)
		wg.Go(func() { w.Run(ctx) })
		wg.Go(func() { o.Run(ctx) })
	}
	return observers
}
