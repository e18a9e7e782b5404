package app_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestRateLimit429 checks the headers of admitted requests and the exact
// 429 of the first one over a key's requests-per-minute limit.
func TestRateLimit429(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{})
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

// TestAccountAndTokenLimits: an account's RPM is shared by its keys, a TPM
// limit reserves max_tokens and settles to real usage, a request larger
// than the limit is refused for good, and limit changes apply at once.
func TestAccountAndTokenLimits(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{TokenDelay: 30 * time.Millisecond})
	t.Cleanup(up.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
	ctx := context.Background()
	k1, _ := g.newKey(t, "acct-limit@example.com")
	k2, k2ID := g.newKey(t, "acct-limit@example.com")
	acct, _ := g.Store.AccountByEmail(ctx, "acct-limit@example.com")
	set := func(u store.LimitsUpdate) {
		t.Helper()
		if err := g.Store.SetLimits(ctx, u); err != nil {
			t.Fatal(err)
		}
		g.waitApplied(t) // the change feed reaches the key cache
	}
	post := func(key, body string) (int, string) {
		resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions",
			map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}, body)
		return resp.StatusCode, raw
	}
	hi := chatBody("gpt-4o-mini", "hi", false)
	// Warm both keys into the cache first: a change must reach cached keys.
	post(k1, hi)
	post(k2, hi)
	five := int64(5)
	set(store.LimitsUpdate{AccountID: acct.ID, RPM: &five})
	ok := 0
	var last string
	for i := range 10 {
		status, raw := post([]string{k1, k2}[i%2], hi)
		if status == 200 {
			ok++
		} else {
			last = raw
		}
	}
	if ok != 5 || !strings.Contains(last, "requests per minute on account "+acct.ID) {
		t.Errorf("account limit 5 over two keys admitted %d; last refusal %s", ok, last)
	}

	tpm := int64(2000)
	set(store.LimitsUpdate{AccountID: acct.ID, KeyID: k2ID, TPM: &tpm})
	hundredK := int64(100000)
	set(store.LimitsUpdate{AccountID: acct.ID, RPM: &hundredK})
	big := `{"model":"gpt-4o-mini","max_tokens":3000,"messages":[{"role":"user","content":"hi"}]}`
	resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions",
		map[string]string{"Authorization": "Bearer " + k2, "Content-Type": "application/json"}, big)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "" || !strings.Contains(raw, "Request too large for tokens per minute") {
		t.Errorf("max_tokens above the TPM limit: %d %v %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
	// Each request reserves ~600 tokens but the fake's answers use ~30:
	// after settling, ten in a row pass where the reservations alone would
	// have stopped the fourth.
	mid := `{"model":"gpt-4o-mini","max_tokens":600,"messages":[{"role":"user","content":"hi"}]}`
	for i := range 10 {
		if status, raw := post(k2, mid); status != 200 {
			t.Fatalf("request %d with max_tokens 600 under TPM 2000: %d %s", i, status, raw)
		}
	}
	// While a stream holds a reservation of ~1700 tokens, another such
	// request does not fit.
	heavy := `{"model":"gpt-4o-mini","max_tokens":1700,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	done := make(chan int)
	go func() {
		status, _ := post(k2, heavy)
		done <- status
	}()
	// Its reservation is taken before it reaches the upstream.
	waitFor(t, 5*time.Second, "the first heavy stream under way", func() bool { return up.Active() > 0 })
	if status, raw := post(k2, heavy); status != 429 || !strings.Contains(raw, "tokens per minute on key "+k2ID) ||
		!strings.Contains(raw, "requested ") {
		t.Errorf("heavy request beside a running one: %d %s", status, raw)
	}
	if status := <-done; status != 200 {
		t.Errorf("the running heavy stream: %d", status)
	}
	// Once it has finished and settled, there is room again.
	if status, raw := post(k2, heavy); status != 200 {
		t.Errorf("heavy request after the first settled: %d %s", status, raw)
	}
}
