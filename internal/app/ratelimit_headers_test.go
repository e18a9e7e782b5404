package app_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/fakeupstream"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// TestRateLimit429 checks the headers of admitted requests and the exact
// 429 of the first one over a key's requests-per-minute limit.
func TestRateLimit429(t *testing.T) {
	up := fakeupstream.Start(fakeupstream.Options{})
	t.Cleanup(up.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
	key, keyID := g.newKey(t, "rpm@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "rpm@example.com")
	rpm := int64(3)
	if err := g.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: acct.ID, KeyID: keyID, RPM: &rpm}); err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	for i := range 3 {
		resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "hi", i == 1))
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, raw)
		}
		if got := resp.Header.Get("x-ratelimit-limit-requests"); got != "3" {
			t.Errorf("request %d: limit header %q", i, got)
		}
		if got := resp.Header.Get("x-ratelimit-remaining-requests"); got != strconv.Itoa(2-i) {
			t.Errorf("request %d: remaining %q, want %d", i, got, 2-i)
		}
		if resp.Header.Get("x-ratelimit-reset-requests") == "" || resp.Header.Get("x-ratelimit-limit-tokens") != "" {
			t.Errorf("request %d: headers %v", i, resp.Header)
		}
	}
	resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "hi", false))
	if resp.StatusCode != 429 {
		t.Fatalf("4th request: %d %s", resp.StatusCode, raw)
	}
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	ms, err2 := strconv.Atoi(resp.Header.Get("retry-after-ms"))
	if err != nil || err2 != nil || secs < 1 || ms > secs*1000 || ms <= (secs-1)*1000 {
		t.Errorf("Retry-After %q, retry-after-ms %q", resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"))
	}
	want := fmt.Sprintf(`{"error":{"message":"Rate limit reached for requests per minute on key %s: limit 3, used 3. Try again in %ds.","type":"rate_limit_error","param":null}}`+"\n", keyID, secs)
	if raw != want {
		t.Errorf("429 body\n got %s\nwant %s", raw, want)
	}
	if resp.Header.Get("x-ratelimit-remaining-requests") != "0" {
		t.Errorf("429 headers %v", resp.Header)
	}
}
