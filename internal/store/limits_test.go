package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	"github.com/switchyard-gw/switchyard/internal/usd"
)

func ptr[T any](v T) *T { return &v }

func TestSetLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		other, _ := s.CreateAccount(ctx, store.NewAccount{Email: "other@example.com"})
		k, hash := newKey(t, s, a.ID, "ci")
		otherKey, _ := newKey(t, s, other.ID, "theirs")
		budget := usd.Amount(12_500_000_000_000) // 12.50 USD

		// Each step applies to what the previous ones left.
		steps := []struct {
			name        string
			u           store.LimitsUpdate
			wantAccount store.Limits
			wantKey     store.Limits
			wantChange  events.Change
		}{
			{"account rpm and budget",
				store.LimitsUpdate{AccountID: a.ID, RPM: ptr[int64](60), MonthlyBudget: &budget},
				store.Limits{RPM: 60, MonthlyBudget: budget}, store.Limits{},
				events.Change{Kind: events.KindAccount, Ref: a.ID}},
			{"account tpm; nil leaves the rest",
				store.LimitsUpdate{AccountID: a.ID, TPM: ptr[int64](10_000)},
				store.Limits{RPM: 60, TPM: 10_000, MonthlyBudget: budget}, store.Limits{},
				events.Change{Kind: events.KindAccount, Ref: a.ID}},
			{"key limits",
				store.LimitsUpdate{AccountID: a.ID, KeyID: k.ID, RPM: ptr[int64](5), TPM: ptr[int64](500), MonthlyBudget: ptr(usd.Amount(375_000_000))},
				store.Limits{RPM: 60, TPM: 10_000, MonthlyBudget: budget}, store.Limits{RPM: 5, TPM: 500, MonthlyBudget: 375_000_000},
				events.Change{Kind: events.KindKey, Ref: hash}},
			{"0 clears",
				store.LimitsUpdate{AccountID: a.ID, RPM: ptr[int64](0), MonthlyBudget: ptr(usd.Amount(0))},
				store.Limits{TPM: 10_000}, store.Limits{RPM: 5, TPM: 500, MonthlyBudget: 375_000_000},
				events.Change{Kind: events.KindAccount, Ref: a.ID}},
			{"0 clears a key's",
				store.LimitsUpdate{AccountID: a.ID, KeyID: k.ID, TPM: ptr[int64](0)},
				store.Limits{TPM: 10_000}, store.Limits{RPM: 5, MonthlyBudget: 375_000_000},
				events.Change{Kind: events.KindKey, Ref: hash}},
		}
		for _, st := range steps {
			before, _ := s.LatestChange(ctx)
			if err := s.SetLimits(ctx, st.u); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			acct, _ := s.AccountByID(ctx, a.ID)
			key, _ := s.KeyByID(ctx, k.ID)
			ka, _ := s.LookupKey(ctx, hash)
			got := []store.Limits{acct.Limits, key.Limits, ka.AccountLimits, ka.KeyLimits}
			want := []store.Limits{st.wantAccount, st.wantKey, st.wantAccount, st.wantKey}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: account, key, LookupKey account, key (-want +got):\n%s", st.name, diff)
			}
			changes, _ := s.ChangesSince(ctx, before)
			if len(changes) != 1 || changes[0].Kind != st.wantChange.Kind || changes[0].Ref != st.wantChange.Ref {
				t.Errorf("%s: changes %+v, want one %+v", st.name, changes, st.wantChange)
			}
		}
		if keys, _ := s.ListKeys(ctx, a.ID); len(keys) != 1 || keys[0].Limits.RPM != 5 {
			t.Errorf("ListKeys limits: %+v", keys)
		}

		bad := []struct {
			name     string
			u        store.LimitsUpdate
			notFound bool
		}{
			{"nothing to set", store.LimitsUpdate{AccountID: a.ID}, false},
			{"negative rpm", store.LimitsUpdate{AccountID: a.ID, RPM: ptr[int64](-1)}, false},
			{"negative tpm on a key", store.LimitsUpdate{AccountID: a.ID, KeyID: k.ID, TPM: ptr[int64](-5)}, false},
			{"negative budget", store.LimitsUpdate{AccountID: a.ID, MonthlyBudget: ptr(usd.Amount(-1))}, false},
			{"unknown account", store.LimitsUpdate{AccountID: "acct_nope", RPM: ptr[int64](1)}, true},
			{"unknown key", store.LimitsUpdate{AccountID: a.ID, KeyID: "key_nope", RPM: ptr[int64](1)}, true},
			{"another account's key", store.LimitsUpdate{AccountID: a.ID, KeyID: otherKey.ID, RPM: ptr[int64](1)}, true},
		}
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				before, _ := s.LatestChange(ctx)
				err := s.SetLimits(ctx, tt.u)
				if err == nil || errors.Is(err, store.ErrNotFound) != tt.notFound {
					t.Errorf("err = %v, want an error (not found: %v)", err, tt.notFound)
				}
				if after, _ := s.LatestChange(ctx); after != before {
					t.Error("a refused update recorded a change")
				}
			})
		}
		if got, _ := s.KeyByID(ctx, otherKey.ID); got.Limits != (store.Limits{}) {
			t.Errorf("another account's key changed: %+v", got.Limits)
		}
		if got, _ := s.AccountByID(ctx, a.ID); got.Limits != (store.Limits{TPM: 10_000}) {
			t.Errorf("refused updates changed the account: %+v", got.Limits)
		}
	})
}

// TestLimitsOnRevokedKey checks that setting limits does not trip the
// revocation trigger (it guards only status, revoked_at and key_hash).
func TestLimitsOnRevokedKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		k, _ := newKey(t, s, a.ID, "old")
		if _, err := s.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.SetLimits(ctx, store.LimitsUpdate{AccountID: a.ID, KeyID: k.ID, RPM: ptr[int64](1)}); err != nil {
			t.Errorf("SetLimits on a revoked key: %v", err)
		}
		if got, _ := s.KeyByID(ctx, k.ID); got.Status != store.KeyRevoked {
			t.Errorf("key status %s after SetLimits", got.Status)
		}
	})
}
