package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

func TestSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		other, _ := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com"})
		t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

		first, err := s.CreateSession(ctx, store.NewSession{AccountID: a.ID, TokenHash: "h1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		want := store.Session{ID: first.ID, AccountID: a.ID, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour), LastSeenAt: t0}
		got, err := s.SessionByToken(ctx, "h1", t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SessionByToken (-want +got):\n%s", diff)
		}

		// Last seen moves forward only.
		if err := s.TouchSession(ctx, first.ID, t0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchSession(ctx, first.ID, t0.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, _ = s.SessionByToken(ctx, "h1", t0.Add(11*time.Minute))
		if want := t0.Add(10 * time.Minute); !got.LastSeenAt.Equal(want) {
			t.Errorf("last seen %v, want %v", got.LastSeenAt, want)
		}

		// Expired: not found.
		if _, err := s.SessionByToken(ctx, "h1", t0.Add(time.Hour)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("at expiry: %v, want ErrNotFound", err)
		}
		if _, err := s.SessionByToken(ctx, "nope", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown token: %v, want ErrNotFound", err)
		}

		// Signing in again rotates: the replaced session is gone.
		if _, err := s.CreateSession(ctx, store.NewSession{AccountID: a.ID, TokenHash: "h2", CreatedAt: t0.Add(time.Minute),
			ExpiresAt: t0.Add(2 * time.Hour), Replaces: "h1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionByToken(ctx, "h1", t0.Add(2*time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("replaced session: %v, want ErrNotFound", err)
		}
		if _, err := s.SessionByToken(ctx, "h2", t0.Add(2*time.Minute)); err != nil {
			t.Errorf("new session: %v", err)
		}

		// No session for an unknown account; a token is unique.
		if _, err := s.CreateSession(ctx, store.NewSession{AccountID: "acct_none", TokenHash: "h3", CreatedAt: t0,
			ExpiresAt: t0.Add(time.Hour)}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v, want ErrNotFound", err)
		}
		if _, err := s.CreateSession(ctx, store.NewSession{AccountID: other.ID, TokenHash: "h2", CreatedAt: t0.Add(time.Minute),
			ExpiresAt: t0.Add(time.Hour)}); err == nil {
			t.Error("a second session with the same token hash was stored")
		}

		// Logging out deletes; deleting twice is fine.
		for range 2 {
			if err := s.DeleteSession(ctx, "h2"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.SessionByToken(ctx, "h2", t0.Add(2*time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after logout: %v, want ErrNotFound", err)
		}
	})
}

// TestSessionsExpiredAreRemoved checks that creating a session deletes the
// expired ones, so the table does not grow without bound.
func TestSessionsExpiredAreRemoved(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		for i, h := range []string{"old1", "old2", "live"} {
			exp := t0.Add(time.Minute)
			if h == "live" {
				exp = t0.Add(time.Hour)
			}
			if _, err := s.CreateSession(ctx, store.NewSession{AccountID: a.ID, TokenHash: h,
				CreatedAt: t0.Add(time.Duration(i) * time.Second), ExpiresAt: exp}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.CreateSession(ctx, store.NewSession{AccountID: a.ID, TokenHash: "new",
			CreatedAt: t0.Add(2 * time.Minute), ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		// Looked up at t0, when none had expired: only deleted rows are missing.
		for token, want := range map[string]bool{"old1": false, "old2": false, "live": true, "new": true} {
			_, err := s.SessionByToken(ctx, token, t0)
			if got := err == nil; got != want {
				t.Errorf("session %s stored = %v, want %v (err %v)", token, got, want, err)
			}
		}
	})
}

func TestSetPasswordEndsSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com", PasswordHash: "old"})
		other, _ := s.CreateAccount(ctx, store.NewAccount{Email: "b@example.com", PasswordHash: "theirs"})
		t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		for _, ns := range []store.NewSession{
			{AccountID: a.ID, TokenHash: "a1"}, {AccountID: a.ID, TokenHash: "a2"}, {AccountID: other.ID, TokenHash: "b1"},
		} {
			ns.CreatedAt, ns.ExpiresAt = t0, t0.Add(time.Hour)
			if _, err := s.CreateSession(ctx, ns); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetPassword(ctx, a.ID, "new"); err != nil {
			t.Fatal(err)
		}
		if h, _ := s.PasswordHash(ctx, a.Email); h != "new" {
			t.Errorf("password hash %q, want %q", h, "new")
		}
		if h, _ := s.PasswordHash(ctx, other.Email); h != "theirs" {
			t.Errorf("other account's password hash %q, want it unchanged", h)
		}
		for token, want := range map[string]bool{"a1": false, "a2": false, "b1": true} {
			_, err := s.SessionByToken(ctx, token, t0)
			if got := err == nil; got != want {
				t.Errorf("session %s alive = %v, want %v (err %v)", token, got, want, err)
			}
		}
		if err := s.SetPassword(ctx, "acct_none", "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v, want ErrNotFound", err)
		}
	})
}
