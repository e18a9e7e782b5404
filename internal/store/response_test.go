package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

func storedResponse(id, account string, created time.Time, ttl time.Duration) store.StoredResponse {
	return store.StoredResponse{
		ID: id, AccountID: account, KeyID: "key_1", Model: "gpt-4o-mini",
		CreatedAt: created, ExpiresAt: created.Add(ttl), PreviousResponseID: "resp_before",
		InputItems:  []byte(`[{"role":"user","content":"héllo"}]`),
		OutputItems: []byte(`[{"id":"msg_1","type":"message"}]`),
		Response:    []byte(`{"id":"` + id + `","object":"response"}`),
	}
}

func TestResponses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		now := time.Now().UTC().Truncate(time.Millisecond)
		r := storedResponse("resp_a", "acct_a", now, time.Hour)
		if err := s.SaveResponse(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Response(ctx, "acct_a", "resp_a")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("Response (-saved +read):\n%s", diff)
		}

		// Saved once: the same ID again, even another account's, is refused.
		if err := s.SaveResponse(ctx, storedResponse("resp_a", "acct_b", now, time.Hour)); !errors.Is(err, store.ErrExists) {
			t.Errorf("second save: %v, want ErrExists", err)
		}
		if err := s.SaveResponse(ctx, storedResponse("resp_bad", "acct_a", now, time.Hour-2*time.Hour)); err == nil {
			t.Error("a response expiring before its creation was saved")
		}
		bad := storedResponse("resp_bad", "acct_a", now, time.Hour)
		bad.Response = []byte("{\"x\":\"\x00\"}")
		if err := s.SaveResponse(ctx, bad); err == nil {
			t.Error("a response holding NUL was saved")
		}

		// Expired: neither served nor deletable.
		if err := s.SaveResponse(ctx, storedResponse("resp_old", "acct_a", now.Add(-2*time.Hour), time.Hour)); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct{ account, id string }{
			{"acct_b", "resp_a"}, {"acct_a", "resp_none"}, {"acct_a", "resp_old"}, {"acct_a", "resp_\x00"},
		} {
			if _, err := s.Response(ctx, tt.account, tt.id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Response(%s, %q): %v, want ErrNotFound", tt.account, tt.id, err)
			}
			if err := s.DeleteResponse(ctx, tt.account, tt.id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("DeleteResponse(%s, %q): %v, want ErrNotFound", tt.account, tt.id, err)
			}
		}

		if err := s.DeleteResponse(ctx, "acct_a", "resp_a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Response(ctx, "acct_a", "resp_a"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after delete: %v, want ErrNotFound", err)
		}
		if err := s.DeleteResponse(ctx, "acct_a", "resp_a"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: %v, want ErrNotFound", err)
		}
	})
}

// TestPurgeResponses deletes the expired rows in batches of the size
// asked, oldest first, and leaves the live ones.
func TestPurgeResponses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		s := storetest.Open(t, b.URL)
		now := time.Now().UTC().Truncate(time.Millisecond)
		for i := range 7 {
			// Expired 1..7 minutes ago.
			r := storedResponse(fmt.Sprintf("resp_old%d", i), "acct_a", now.Add(-time.Hour), time.Hour-time.Duration(i+1)*time.Minute)
			if err := s.SaveResponse(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SaveResponse(ctx, storedResponse("resp_live", "acct_a", now, time.Hour)); err != nil {
			t.Fatal(err)
		}
		var got []int
		for {
			n, err := s.PurgeResponses(ctx, now, 3)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
			if n < 3 {
				break
			}
		}
		if diff := cmp.Diff([]int{3, 3, 1}, got); diff != "" {
			t.Errorf("batches (-want +got):\n%s", diff)
		}
		if _, err := s.Response(ctx, "acct_a", "resp_live"); err != nil {
			t.Errorf("live response purged: %v", err)
		}
		// Only rows expired by before go: one that expired a minute ago stays
		// when purging before 5 minutes ago.
		if err := s.SaveResponse(ctx, storedResponse("resp_old9", "acct_a", now.Add(-time.Hour), time.Hour-time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, err := s.PurgeResponses(ctx, now.Add(-5*time.Minute), 1); err != nil || n != 0 {
			t.Errorf("purge before 5 minutes ago: %d, %v; want 0", n, err)
		}
		if n, err := s.PurgeResponses(ctx, now, 0); err == nil {
			t.Errorf("batch of 0: %d, want an error", n)
		}
	})
}
