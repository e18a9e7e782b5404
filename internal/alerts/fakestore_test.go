package alerts_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/alerts"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

// fakeStore is an in-memory alerts.Store that, like the real one, stores
// at most one event per rule and period.
type fakeStore struct {
	mu         sync.Mutex
	rules      map[string][]alerts.Rule // by account
	events     []alerts.Event
	fired      map[[2]string]bool // rule ID, period
	deliveries []alerts.Delivery
	fireCalls  int
	failRules  int // AlertRules calls still to fail
}

var _ alerts.Store = (*fakeStore)(nil)

var errFake = errors.New("fake store is down")

func newFakeStore() *fakeStore {
	return &fakeStore{rules: map[string][]alerts.Rule{}, fired: map[[2]string]bool{}}
}

func (s *fakeStore) addRule(r alerts.Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules[r.AccountID] = append(s.rules[r.AccountID], r)
}

func (s *fakeStore) failRuleLoads(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRules = n
}

func (s *fakeStore) AlertRules(ctx context.Context, accountID string) ([]alerts.Rule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failRules > 0 {
		s.failRules--
		return nil, errFake
	}
	rules := slices.Clone(s.rules[accountID])
	slices.SortFunc(rules, func(a, b alerts.Rule) int { return cmp.Compare(a.Threshold, b.Threshold) })
	return rules, nil
}

func (s *fakeStore) FiredRules(ctx context.Context, accountID, period string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, ev := range s.events {
		if ev.AccountID == accountID && ev.Period == period {
			ids = append(ids, ev.RuleID)
		}
	}
	return ids, nil
}

func (s *fakeStore) FireAlert(ctx context.Context, rule alerts.Rule, ev alerts.Event) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fireCalls++
	key := [2]string{rule.ID, ev.Period}
	if s.fired[key] {
		return false, nil
	}
	s.fired[key] = true
	s.events = append(s.events, ev)
	add := func(channel, target string) {
		s.deliveries = append(s.deliveries, alerts.Delivery{
			ID: fmt.Sprintf("dlv_%d", len(s.deliveries)+1), EventID: ev.ID, Channel: channel, Target: target,
			Status: alerts.StatusPending, NextAttemptAt: ev.CreatedAt,
		})
	}
	if rule.WebhookURL != "" {
		add(alerts.ChannelWebhook, rule.WebhookURL)
	}
	if rule.Email != "" {
		add(alerts.ChannelEmail, rule.Email)
	}
	return true, nil
}

func (s *fakeStore) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]alerts.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var claims []alerts.Claim
	for i := range s.deliveries {
		d := &s.deliveries[i]
		if len(claims) == limit || d.Status != alerts.StatusPending || d.NextAttemptAt.After(now) {
			continue
		}
		d.NextAttemptAt = now.Add(lease)
		ev := s.eventLocked(d.EventID)
		claims = append(claims, alerts.Claim{Delivery: *d, Event: ev, Rule: s.ruleLocked(ev.AccountID, ev.RuleID)})
	}
	return claims, nil
}

func (s *fakeStore) FinishDelivery(ctx context.Context, d alerts.Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.deliveries {
		if s.deliveries[i].ID == d.ID {
			s.deliveries[i] = d
			return nil
		}
	}
	return fmt.Errorf("no delivery %s", d.ID)
}

func (s *fakeStore) eventLocked(id string) alerts.Event {
	for _, ev := range s.events {
		if ev.ID == id {
			return ev
		}
	}
	return alerts.Event{}
}

func (s *fakeStore) ruleLocked(account, id string) alerts.Rule {
	for _, r := range s.rules[account] {
		if r.ID == id {
			return r
		}
	}
	return alerts.Rule{}
}

// eventList returns the stored events.
func (s *fakeStore) eventList() []alerts.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// firedThresholds returns the stored events' "period threshold" pairs.
func (s *fakeStore) firedThresholds() []string {
	var got []string
	for _, ev := range s.eventList() {
		got = append(got, ev.Period+" "+ev.Threshold.String())
	}
	slices.Sort(got)
	return got
}

func (s *fakeStore) deliveryList() []alerts.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries)
}

// only returns the single delivery, failing t when there is not exactly one.
func (s *fakeStore) only(t *testing.T) alerts.Delivery {
	t.Helper()
	ds := s.deliveryList()
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want 1: %+v", len(ds), ds)
	}
	return ds[0]
}

func (s *fakeStore) fireCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fireCalls
}

// clock is a fake clock that moves only when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 14, 9, 30, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func dollars(n int64) usd.Amount { return usd.Amount(n) * usd.USD }

func usdCents(n int64) usd.Amount { return usd.Amount(n) * usd.Cent }

// waitFor polls cond until it holds or 10s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
