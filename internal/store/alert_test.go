package store_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func addRule(t *testing.T, s *store.Store, r alerts.Rule) alerts.Rule {
	t.Helper()
	got, err := s.AddAlertRule(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAlertRules(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		other, _ := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com"})

		before, _ := s.LatestChange(ctx)
		hook := addRule(t, s, alerts.Rule{AccountID: a.ID, Threshold: 50 * usd.USD, WebhookURL: "https://hooks.example.com/x", WebhookSecret: "ignored"})
		if !regexp.MustCompile(`^alr_[a-z2-7]{16}$`).MatchString(hook.ID) || hook.CreatedAt.IsZero() {
			t.Errorf("rule %+v", hook)
		}
		if !regexp.MustCompile(`^whsec_[a-z2-7]{32}$`).MatchString(hook.WebhookSecret) {
			t.Errorf("webhook secret %q, want whsec_ and 32 base-32 characters", hook.WebhookSecret)
		}
		if changes, _ := s.ChangesSince(ctx, before); len(changes) != 1 || changes[0].Kind != events.KindAlerts || changes[0].Ref != a.ID {
			t.Errorf("changes after AddAlertRule: %+v", changes)
		}
		mail := addRule(t, s, alerts.Rule{AccountID: a.ID, Threshold: 10 * usd.USD, Email: "ops@example.com"})
		if mail.WebhookSecret != "" {
			t.Errorf("a rule without a webhook got secret %q", mail.WebhookSecret)
		}
		addRule(t, s, alerts.Rule{AccountID: other.ID, Threshold: usd.Cent, Email: "b@example.com"})

		got, err := s.AlertRules(ctx, a.ID)
		if diff := cmp.Diff([]alerts.Rule{mail, hook}, got); err != nil || diff != "" {
			t.Errorf("AlertRules, lowest threshold first (-want +got), err %v:\n%s", err, diff)
		}

		bad := []struct {
			name     string
			r        alerts.Rule
			notFound bool
		}{
			{"zero threshold", alerts.Rule{AccountID: a.ID, Email: "x@example.com"}, false},
			{"negative threshold", alerts.Rule{AccountID: a.ID, Threshold: -1, Email: "x@example.com"}, false},
			{"no channel", alerts.Rule{AccountID: a.ID, Threshold: usd.USD}, false},
			{"unknown account", alerts.Rule{AccountID: "acct_nope", Threshold: usd.USD, Email: "x@example.com"}, true},
		}
		for _, tt := range bad {
			if _, err := s.AddAlertRule(ctx, tt.r); err == nil || errors.Is(err, store.ErrNotFound) != tt.notFound {
				t.Errorf("%s: err = %v, want an error (not found: %v)", tt.name, err, tt.notFound)
			}
		}

		if err := s.RemoveAlertRule(ctx, other.ID, mail.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("removing another account's rule: %v, want ErrNotFound", err)
		}
		before, _ = s.LatestChange(ctx)
		if err := s.RemoveAlertRule(ctx, a.ID, mail.ID); err != nil {
			t.Fatal(err)
		}
		if changes, _ := s.ChangesSince(ctx, before); len(changes) != 1 || changes[0].Kind != events.KindAlerts || changes[0].Ref != a.ID {
			t.Errorf("changes after RemoveAlertRule: %+v", changes)
		}
		if err := s.RemoveAlertRule(ctx, a.ID, mail.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("removing twice: %v, want ErrNotFound", err)
		}
		if got, _ := s.AlertRules(ctx, a.ID); len(got) != 1 || got[0].ID != hook.ID {
			t.Errorf("after remove: %+v", got)
		}
	})
}

// TestFireAlertOnce fires one rule and period from many goroutines on
// several store handles: exactly one wins, with one delivery per channel.
func TestFireAlertOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		rule := addRule(t, s, alerts.Rule{AccountID: a.ID, Threshold: usd.USD, WebhookURL: "https://h.example.com", Email: "o@example.com"})
		stores := []*store.Store{s, storetest.Open(t, b.URL)}
		at := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
		var wg sync.WaitGroup
		wins := make(chan string, 16)
		for i := range 16 {
			wg.Go(func() {
				ev := alerts.Event{RuleID: rule.ID, AccountID: a.ID, Period: "2026-05", Threshold: usd.USD,
					Spend: usd.USD + usd.Amount(i), CreatedAt: at}
				fired, err := stores[i%2].FireAlert(ctx, rule, ev)
				if err != nil {
					t.Error(err)
				}
				if fired {
					wins <- fmt.Sprint(i)
				}
			})
		}
		wg.Wait()
		close(wins)
		if n := len(wins); n != 1 {
			t.Fatalf("%d callers fired the alert, want exactly 1", n)
		}
		if fired, err := s.FireAlert(ctx, rule, alerts.Event{Period: "2026-06", CreatedAt: at.Add(time.Hour)}); err != nil || !fired {
			t.Errorf("next period: %v, %v; want true", fired, err)
		}
		if got, _ := s.FiredRules(ctx, a.ID, "2026-05"); !cmp.Equal(got, []string{rule.ID}) {
			t.Errorf("FiredRules(2026-05) = %v", got)
		}
		if got, _ := s.FiredRules(ctx, a.ID, "2026-04"); len(got) != 0 {
			t.Errorf("FiredRules(2026-04) = %v", got)
		}
		hist, err := s.AlertHistory(ctx, a.ID, 10)
		if err != nil || len(hist) != 2 {
			t.Fatalf("AlertHistory = %+v, %v", hist, err)
		}
		if hist[0].Event.Period != "2026-06" {
			t.Errorf("history not newest first: %+v", hist)
		}
		h := hist[1]
		var channels []string
		for _, d := range h.Deliveries {
			channels = append(channels, d.Channel+" "+d.Target+" "+d.Status)
			if !d.NextAttemptAt.Equal(at) || d.Attempts != 0 {
				t.Errorf("delivery %+v, want due at %v with no attempts", d, at)
			}
		}
		want := []string{"email o@example.com pending", "webhook https://h.example.com pending"}
		if !cmp.Equal(channels, want) {
			t.Errorf("deliveries %v, want %v", channels, want)
		}

		for _, ev := range []alerts.Event{
			{Period: "2026-5"},
			{Period: ""},
			{Period: "2026-07", RuleID: "alr_other"},
		} {
			if _, err := s.FireAlert(ctx, rule, ev); err == nil {
				t.Errorf("FireAlert(%+v) succeeded", ev)
			}
		}
	})
}

// TestClaimDeliveries claims from several goroutines and store handles at
// once: no delivery is handed out twice while its lease runs.
func TestClaimDeliveries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		t0 := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
		const rules = 20
		for i := range rules {
			r := addRule(t, s, alerts.Rule{AccountID: a.ID, Threshold: usd.Amount(i+1) * usd.USD,
				WebhookURL: "https://h.example.com/" + fmt.Sprint(i), Email: "o@example.com"})
			if _, err := s.FireAlert(ctx, r, alerts.Event{Period: "2026-05", CreatedAt: t0.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.ClaimDeliveries(ctx, t0.Add(-time.Second), time.Minute, 10); err != nil || len(got) != 0 {
			t.Errorf("claim before anything is due: %d, %v", len(got), err)
		}

		now := t0.Add(time.Hour)
		stores := []*store.Store{s, storetest.Open(t, b.URL), storetest.Open(t, b.URL)}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				for {
					claims, err := stores[i%3].ClaimDeliveries(ctx, now, time.Minute, 3)
					if err != nil {
						t.Error(err)
						return
					}
					if len(claims) == 0 {
						return
					}
					mu.Lock()
					for _, c := range claims {
						seen[c.Delivery.ID]++
						if c.Rule.ID != c.Event.RuleID || c.Rule.WebhookSecret == "" || !c.Delivery.NextAttemptAt.Equal(now.Add(time.Minute)) {
							t.Errorf("claim %+v", c)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 2*rules {
			t.Errorf("claimed %d distinct deliveries, want %d", len(seen), 2*rules)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("delivery %s claimed %d times", id, n)
			}
		}
		if got, _ := s.ClaimDeliveries(ctx, now.Add(59*time.Second), time.Minute, 100); len(got) != 0 {
			t.Errorf("%d claimed while leased", len(got))
		}
		if _, err := s.ClaimDeliveries(ctx, now, 0, 10); err == nil {
			t.Error("a zero lease was accepted")
		}
		if _, err := s.ClaimDeliveries(ctx, now, time.Minute, 0); err == nil {
			t.Error("a zero limit was accepted")
		}
	})
}

func TestFinishDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		rule := addRule(t, s, alerts.Rule{AccountID: a.ID, Threshold: usd.USD, WebhookURL: "https://h.example.com"})
		t0 := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
		ev := alerts.Event{Period: "2026-05", Threshold: usd.USD, Spend: 2 * usd.USD, CreatedAt: t0}
		if _, err := s.FireAlert(ctx, rule, ev); err != nil {
			t.Fatal(err)
		}
		claims, err := s.ClaimDeliveries(ctx, t0, time.Minute, 10)
		if err != nil || len(claims) != 1 {
			t.Fatalf("claims %+v, %v", claims, err)
		}
		c := claims[0]
		if c.Event.Spend != 2*usd.USD || c.Event.AccountID != a.ID || c.Event.RuleID != rule.ID || c.Rule != rule {
			t.Errorf("claim %+v", c)
		}

		// A failed attempt, retried later.
		d := c.Delivery
		d.Attempts, d.LastError, d.NextAttemptAt = 1, "503 from hook", t0.Add(10*time.Minute)
		if err := s.FinishDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.ClaimDeliveries(ctx, t0.Add(9*time.Minute), time.Minute, 10); len(got) != 0 {
			t.Errorf("claimed before the retry is due: %+v", got)
		}
		// The rule goes; the pending delivery still goes out, with a zero rule.
		if err := s.RemoveAlertRule(ctx, a.ID, rule.ID); err != nil {
			t.Fatal(err)
		}
		claims, err = s.ClaimDeliveries(ctx, t0.Add(10*time.Minute), time.Minute, 10)
		if err != nil || len(claims) != 1 || claims[0].Rule != (alerts.Rule{}) || claims[0].Delivery.LastError != "503 from hook" {
			t.Fatalf("claim after the rule was removed: %+v, %v", claims, err)
		}
		d = claims[0].Delivery
		d.Status, d.Attempts, d.LastError, d.DeliveredAt = alerts.StatusDelivered, 2, "", t0.Add(11*time.Minute)
		if err := s.FinishDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.ClaimDeliveries(ctx, t0.Add(time.Hour), time.Minute, 10); len(got) != 0 {
			t.Errorf("a delivered delivery was claimed: %+v", got)
		}

		hist, err := s.AlertHistory(ctx, a.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		ev.ID, ev.RuleID, ev.AccountID = c.Event.ID, rule.ID, a.ID
		want := []store.AlertHistory{{Event: ev, Deliveries: []alerts.Delivery{d}}}
		if diff := cmp.Diff(want, hist); diff != "" {
			t.Errorf("history after the rule was removed (-want +got):\n%s", diff)
		}
		if hist, _ := s.AlertHistory(ctx, "acct_other", 10); len(hist) != 0 {
			t.Errorf("another account's history: %+v", hist)
		}

		for _, bad := range []alerts.Delivery{
			{ID: "dlv_nope", Status: alerts.StatusFailed},
			{ID: d.ID, Status: "lost"},
		} {
			if err := s.FinishDelivery(ctx, bad); err == nil {
				t.Errorf("FinishDelivery(%+v) succeeded", bad)
			}
		}
	})
}
