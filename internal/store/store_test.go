package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/events"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

func newKey(t *testing.T, s *store.Store, accountID, name string) (store.Key, string) {
	t.Helper()
	full := apikey.Generate()
	h, err := apikey.Parse(full)
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.CreateKey(context.Background(), store.NewKey{AccountID: accountID, Name: name, Hash: h.String(), Hint: apikey.Hint(full)})
	if err != nil {
		t.Fatal(err)
	}
	return k, h.String()
}

func TestAccounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, err := s.CreateAccount(ctx, store.NewAccount{Email: " Owner@Example.com ", PasswordHash: "h", IsAdmin: true})
		if err != nil {
			t.Fatal(err)
		}
		if a.Email != "owner@example.com" || !a.IsAdmin || a.ID == "" {
			t.Errorf("created %+v", a)
		}
		if _, err := s.CreateAccount(ctx, store.NewAccount{Email: "OWNER@example.com"}); !errors.Is(err, store.ErrExists) {
			t.Errorf("duplicate email: err = %v, want ErrExists", err)
		}
		got, err := s.AccountByEmail(ctx, "owner@EXAMPLE.com")
		if err != nil || !cmp.Equal(got, a) {
			t.Errorf("AccountByEmail = %+v, %v; want %+v", got, err, a)
		}
		if got, err := s.AccountByID(ctx, a.ID); err != nil || !cmp.Equal(got, a) {
			t.Errorf("AccountByID = %+v, %v", got, err)
		}
		if err := s.SetAccountModels(ctx, a.ID, []string{"gpt-4o", "llama-*"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.AccountByID(ctx, a.ID); !cmp.Equal(got.Models, []string{"gpt-4o", "llama-*"}) {
			t.Errorf("account models = %v", got.Models)
		}
		if err := s.SetAccountModels(ctx, "acct_nope", nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetAccountModels on unknown account: %v", err)
		}
		if _, err := s.AccountByEmail(ctx, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown email: err = %v", err)
		}
		if h, err := s.PasswordHash(ctx, "owner@example.com"); err != nil || h != "h" {
			t.Errorf("PasswordHash = %q, %v", h, err)
		}
		all, err := s.ListAccounts(ctx)
		if err != nil || len(all) != 1 {
			t.Errorf("ListAccounts = %v, %v", all, err)
		}
	})
}

// TestSetAccountDisabled disables an account: its keys look disabled to
// the gateway, its sessions end, every server is told; enabling undoes
// all but the sessions.
func TestSetAccountDisabled(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		other, _ := s.CreateAccount(ctx, store.NewAccount{Email: "other@example.com"})
		_, hash := newKey(t, s, a.ID, "ci")
		now := time.Now()
		for i, acct := range []string{a.ID, a.ID, other.ID} {
			if _, err := s.CreateSession(ctx, store.NewSession{AccountID: acct, TokenHash: fmt.Sprintf("%064d", i),
				CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, disabled := range []bool{true, false} {
			before, _ := s.LatestChange(ctx)
			if err := s.SetAccountDisabled(ctx, a.ID, disabled); err != nil {
				t.Fatal(err)
			}
			got, _ := s.AccountByID(ctx, a.ID)
			ka, _ := s.LookupKey(ctx, hash)
			if got.Disabled != disabled || ka.AccountDisabled != disabled {
				t.Errorf("disabled %v: account %v, key's account %v", disabled, got.Disabled, ka.AccountDisabled)
			}
			changes, _ := s.ChangesSince(ctx, before)
			if len(changes) != 1 || changes[0].Kind != events.KindAccount || changes[0].Ref != a.ID {
				t.Errorf("disabled %v: changes %+v, want one of account %s", disabled, changes, a.ID)
			}
		}
		for i, want := range []bool{false, false, true} {
			_, err := s.SessionByToken(ctx, fmt.Sprintf("%064d", i), now)
			if got := err == nil; got != want {
				t.Errorf("session %d alive = %v (%v), want %v", i, got, err, want)
			}
		}
		if o, _ := s.AccountByID(ctx, other.ID); o.Disabled {
			t.Error("the other account was disabled")
		}
		if err := s.SetAccountDisabled(ctx, "acct_nope", true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v, want ErrNotFound", err)
		}
	})
}

func TestKeyLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		if _, err := s.CreateKey(ctx, store.NewKey{AccountID: a.ID, Hash: "x", Hint: "y"}); err == nil {
			t.Error("key without a name was created")
		}
		k, hash := newKey(t, s, a.ID, "ci pipeline")
		limited, err := s.CreateKey(ctx, store.NewKey{AccountID: a.ID, Name: "limited", Hash: "ab", Hint: "h", Models: []string{"gpt-4o-mini"}})
		if err != nil || !cmp.Equal(limited.Models, []string{"gpt-4o-mini"}) {
			t.Fatalf("key with models: %+v %v", limited, err)
		}
		if ka, _ := s.LookupKey(ctx, "ab"); !cmp.Equal(ka.KeyModels, []string{"gpt-4o-mini"}) || ka.AccountModels != nil {
			t.Errorf("LookupKey models = %+v", ka)
		}
		if k.Status != store.KeyActive || !k.RevokedAt.IsZero() {
			t.Errorf("new key %+v", k)
		}
		ka, err := s.LookupKey(ctx, hash)
		if err != nil || ka.KeyID != k.ID || ka.AccountID != a.ID || ka.Revoked {
			t.Errorf("LookupKey = %+v, %v", ka, err)
		}
		if _, err := s.LookupKey(ctx, "00"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown hash: %v", err)
		}

		used := time.Now().UTC().Truncate(time.Millisecond)
		if err := s.TouchKeys(ctx, map[string]time.Time{k.ID: used}); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchKeys(ctx, map[string]time.Time{k.ID: used.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.KeyByID(ctx, k.ID); !got.LastUsedAt.Equal(used) {
			t.Errorf("last_used_at = %v, want %v (never backwards)", got.LastUsedAt, used)
		}

		rk, err := s.RevokeKey(ctx, k.ID)
		if err != nil || rk.Status != store.KeyRevoked || rk.RevokedAt.IsZero() {
			t.Fatalf("RevokeKey = %+v, %v", rk, err)
		}
		if _, err := s.RevokeKey(ctx, k.ID); !errors.Is(err, store.ErrRevoked) {
			t.Errorf("second revoke: %v, want ErrRevoked", err)
		}
		if _, err := s.RevokeKey(ctx, "key_nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoke unknown: %v", err)
		}
		if ka, _ := s.LookupKey(ctx, hash); !ka.Revoked {
			t.Error("revoked key looks active")
		}
		keys, err := s.ListKeys(ctx, a.ID)
		if err != nil || len(keys) != 2 || !slices.ContainsFunc(keys, func(k store.Key) bool { return k.ID == rk.ID && k.Hint == rk.Hint }) {
			t.Errorf("ListKeys = %+v, %v", keys, err)
		}
	})
}

// TestRevocationIsPermanent tries every way back from revoked: direct SQL,
// a restart, and migrations run again.
func TestRevocationIsPermanent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		k, hash := newKey(t, s, a.ID, "to revoke")
		if _, err := s.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`UPDATE api_keys SET status = 'active', revoked_at = NULL`,
			`UPDATE api_keys SET status = 'active'`,
			`UPDATE api_keys SET revoked_at = NULL`,
			`UPDATE api_keys SET key_hash = 'other'`,
			`DELETE FROM api_keys`,
		} {
			if _, err := store.ExecForTest(ctx, s, q); err == nil {
				t.Errorf("%s: succeeded on a revoked key", q)
			}
		}
		s.Close()

		s2 := storetest.Open(t, b.URL) // reopen and migrate again
		if n, err := s2.Migrate(ctx); err != nil || n != 0 {
			t.Errorf("Migrate again = %d, %v; want 0, nil", n, err)
		}
		ka, err := s2.LookupKey(ctx, hash)
		if err != nil || !ka.Revoked {
			t.Errorf("after restart LookupKey = %+v, %v; want revoked", ka, err)
		}
	})
}

func TestMigrateConcurrently(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				s, err := store.Open(ctx, b.URL, store.Options{})
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				_, err = s.Migrate(ctx)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

func TestSchemaCheck(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s, err := store.Open(ctx, b.URL, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.CheckSchema(ctx); !errors.Is(err, store.ErrSchemaTooOld) {
			t.Errorf("empty database: %v, want ErrSchemaTooOld", err)
		}
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ExecForTest(ctx, s, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckSchema(ctx); !errors.Is(err, store.ErrSchemaTooNew) {
			t.Errorf("future schema: %v, want ErrSchemaTooNew", err)
		}
	})
}

// TestChangeFeed checks that a revocation made through one store handle
// reaches a watcher on another handle of the same database.
func TestChangeFeed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		writer := storetest.Open(t, b.URL)
		reader := storetest.Open(t, b.URL)
		a, _ := writer.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		k, hash := newKey(t, writer, a.ID, "k")

		got := make(chan events.Change, 10)
		w := events.NewWatcher(reader, nil, time.Hour) // no safety poll: the signal must do it
		w.Handle(func(c events.Change) { got <- c })
		wait, err := w.Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer wait()
		defer cancel()
		time.Sleep(50 * time.Millisecond) // let LISTEN or the first data_version read happen

		start := time.Now()
		if _, err := writer.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-got:
			if c.Kind != events.KindKey || c.Ref != hash {
				t.Errorf("change = %+v, want key %s", c, hash)
			}
			t.Logf("%s: revocation reached the other handle in %v", b.Name, time.Since(start))
		case <-time.After(10 * time.Second):
			t.Fatal("no change delivered")
		}
	})
}

// TestLookupsOfTextNoRowHolds looks up, changes and removes by IDs and
// emails that are not UTF-8 or hold NUL: ErrNotFound on every backend
// (PostgreSQL would refuse the query itself), and nothing changes.
func TestLookupsOfTextNoRowHolds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		a, _ := s.CreateAccount(ctx, store.NewAccount{Email: "a@example.com"})
		k, _ := newKey(t, s, a.ID, "ci")
		rpm := int64(5)
		for _, bad := range []string{"\xff\xfe", "key_\x00", a.ID + "\x00", "a@example.com\x00"} {
			ops := map[string]error{}
			_, ops["AccountByID"] = s.AccountByID(ctx, bad)
			_, ops["AccountByEmail"] = s.AccountByEmail(ctx, bad)
			_, ops["KeyByID"] = s.KeyByID(ctx, bad)
			_, ops["RevokeKey"] = s.RevokeKey(ctx, bad)
			ops["SetAccountModels"] = s.SetAccountModels(ctx, bad, []string{"gpt-4o"})
			ops["SetAccountDisabled"] = s.SetAccountDisabled(ctx, bad, true)
			ops["RemoveAlertRule"] = s.RemoveAlertRule(ctx, a.ID, bad)
			ops["SetLimits of a key"] = s.SetLimits(ctx, store.LimitsUpdate{AccountID: a.ID, KeyID: bad, RPM: &rpm})
			ops["SetLimits of an account"] = s.SetLimits(ctx, store.LimitsUpdate{AccountID: bad, RPM: &rpm})
			for op, err := range ops {
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s(%q) = %v, want ErrNotFound", op, bad, err)
				}
			}
		}
		if got, _ := s.AccountByID(ctx, a.ID); got.Disabled || len(got.Models) > 0 || got.Limits != (store.Limits{}) {
			t.Errorf("the account changed: %+v", got)
		}
		if got, _ := s.KeyByID(ctx, k.ID); got.Status != store.KeyActive || got.Limits != (store.Limits{}) {
			t.Errorf("the key changed: %+v", got)
		}
	})
}
