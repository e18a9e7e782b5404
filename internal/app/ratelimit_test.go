package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/cli"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// eachLimiter runs f with the in-process limiter and, when
// SWITCHYARD_TEST_REDIS_URL is set, with the Redis one; env is what the
// gateway's environment adds for it.
func eachLimiter(t *testing.T, f func(t *testing.T, env map[string]string)) {
	t.Run("memory", func(t *testing.T) { f(t, map[string]string{}) })
	t.Run("redis", func(t *testing.T) {
		url := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
		if url == "" {
			t.Skip("SWITCHYARD_TEST_REDIS_URL not set: the Redis limiter is not tested")
		}
		f(t, map[string]string{"SWITCHYARD_REDIS_URL": url})
	})
}

// limited is a gateway over a fake OpenAI upstream on its own SQLite file.
type limited struct {
	*gateway
	up *fakeopenai.Server
	db string
}

func startLimited(t *testing.T, env map[string]string, opt fakeopenai.Options, mut func(*config.Config)) *limited {
	t.Helper()
	up := fakeopenai.Start(opt)
	t.Cleanup(up.Close)
	db := storetest.SQLiteURL(t)
	e := map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}
	maps.Copy(e, env)
	return &limited{gateway: startWith(t, db, e, mut), up: up, db: db}
}

// limitedKey creates a key of email's account and stores u for it (u's
// AccountID is filled in; a KeyID of "-" means the key's own). The key has
// never been used, so its first request reads these limits.
func (l *limited) limitedKey(t *testing.T, email string, u store.LimitsUpdate) (key, keyID, accountID string) {
	t.Helper()
	key, keyID = l.newKey(t, email)
	acct, err := l.Store.AccountByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	u.AccountID = acct.ID
	if u.KeyID == "-" {
		u.KeyID = keyID
	}
	if err := l.Store.SetLimits(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return key, keyID, acct.ID
}

func (l *limited) post(t *testing.T, key, body string) (*http.Response, string) {
	t.Helper()
	resp, _, raw := do(t, "POST", l.URL+"/v1/chat/completions",
		map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}, body)
	return resp, raw
}

func ptr[T any](v T) *T { return &v }

// tokensBody is a chat request for maxTokens output tokens.
func tokensBody(content string, maxTokens int, stream bool) string {
	return fmt.Sprintf(`{"model":"gpt-4o-mini","max_tokens":%d,"stream":%t,"messages":[{"role":"user","content":%q}]}`,
		maxTokens, stream, content)
}

// reserved is what the gateway reserves for a chat body: the prompt at
// four bytes of body a token, plus max_tokens.
func reserved(body string, maxTokens int) int64 { return int64(len(body)/4 + 1 + maxTokens) }

// header returns the integer value of resp's header name, failing the
// test when it is not one.
func header(t *testing.T, resp *http.Response, name string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(resp.Header.Get(name), 10, 64)
	if err != nil {
		t.Fatalf("%s %q is not an integer: %v", name, resp.Header.Get(name), err)
	}
	return n
}

// retryAfter checks a rate-limit 429's Retry-After (whole seconds, at
// least 1) against its retry-after-ms, and returns the seconds.
func retryAfter(t *testing.T, resp *http.Response) int64 {
	t.Helper()
	secs, ms := header(t, resp, "Retry-After"), header(t, resp, "retry-after-ms")
	if secs < 1 || ms <= 0 || ms > secs*1000 || ms <= (secs-1)*1000 {
		t.Errorf("Retry-After %d s with retry-after-ms %d: the seconds must be the milliseconds rounded up, at least 1", secs, ms)
	}
	return secs
}

// refusal is the exact body of the gateway's 429 for resp, with "used"
// and the seconds to wait taken from its headers. kind is "requests" or
// "tokens"; requested is the token cost asked for (tokens only).
func refusal(t *testing.T, resp *http.Response, kind, scope, id string, requested int64) string {
	t.Helper()
	limit := header(t, resp, "x-ratelimit-limit-"+kind)
	used := limit - header(t, resp, "x-ratelimit-remaining-"+kind)
	extra := ""
	if kind == "tokens" {
		extra = fmt.Sprintf(", requested %d", requested)
	}
	return fmt.Sprintf(`{"error":{"message":"Rate limit reached for %s per minute on %s %s: limit %d, used %d%s. Try again in %ds.","type":"rate_limit_error","param":null}}`+"\n",
		kind, scope, id, limit, used, extra, retryAfter(t, resp))
}

// checkErrorShape checks that a 429 body has exactly message, type and a
// null param: no "code" key at all.
func checkErrorShape(t *testing.T, raw string) {
	t.Helper()
	var body struct{ Error map[string]any }
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatalf("429 body %q: %v", raw, err)
	}
	keys := slices.Sorted(maps.Keys(body.Error))
	if !slices.Equal(keys, []string{"message", "param", "type"}) || body.Error["param"] != nil || body.Error["type"] != "rate_limit_error" {
		t.Errorf("429 error object has keys %v: %s", keys, raw)
	}
}

// TestRateLimitExact429: a key with RPM 3 gets three answers, plain and
// streamed, whose x-ratelimit-* headers count down, then the exact 429;
// the refused request never reaches the provider.
func TestRateLimitExact429(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		l := startLimited(t, env, fakeopenai.Options{}, nil)
		key, keyID, _ := l.limitedKey(t, "exact@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](3)})
		for i := range 3 {
			stream := i == 1
			resp, raw := l.post(t, key, chatBody("gpt-4o-mini", "hi", stream))
			if resp.StatusCode != 200 {
				t.Fatalf("request %d: %d %s", i, resp.StatusCode, raw)
			}
			if stream && (resp.Header.Get("Content-Type") != "text/event-stream" || !strings.HasSuffix(raw, "data: [DONE]\n\n")) {
				t.Errorf("streamed request: %q %q", resp.Header.Get("Content-Type"), raw)
			}
			got := []string{resp.Header.Get("x-ratelimit-limit-requests"), resp.Header.Get("x-ratelimit-remaining-requests")}
			if want := []string{"3", strconv.Itoa(2 - i)}; !slices.Equal(got, want) {
				t.Errorf("request %d (stream %t): limit, remaining %q, want %q", i, stream, got, want)
			}
			// Each request owes 20 s of the minute: the bucket is full
			// again (i+1)×20 s from now, less the milliseconds elapsed.
			reset, err := time.ParseDuration(resp.Header.Get("x-ratelimit-reset-requests"))
			if full := time.Duration(i+1) * 20 * time.Second; err != nil || reset > full || reset < full-2*time.Second {
				t.Errorf("request %d: x-ratelimit-reset-requests %q, want about %v", i, resp.Header.Get("x-ratelimit-reset-requests"), full)
			}
			if resp.Header.Get("x-ratelimit-limit-tokens") != "" {
				t.Errorf("request %d: token headers without a TPM limit: %v", i, resp.Header)
			}
		}
		resp, raw := l.post(t, key, chatBody("gpt-4o-mini", "hi", false))
		if resp.StatusCode != 429 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("4th request: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		}
		if want := refusal(t, resp, "requests", "key", keyID, 0); raw != want {
			t.Errorf("429 body\n got %q\nwant %q", raw, want)
		}
		if used := header(t, resp, "x-ratelimit-limit-requests") - header(t, resp, "x-ratelimit-remaining-requests"); used != 3 {
			t.Errorf("429 headers say %d used, want 3", used)
		}
		checkErrorShape(t, raw)
		if n := len(l.up.Requests()); n != 3 {
			t.Errorf("the provider saw %d requests, want 3: a refused request must not reach it", n)
		}
	})
}

// TestRateLimitAccountShared: an account's RPM of 5 is shared by its two
// keys, the 429 names the account, and another account is not affected.
func TestRateLimitAccountShared(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		l := startLimited(t, env, fakeopenai.Options{}, nil)
		k1, _, acctID := l.limitedKey(t, "shared@example.com", store.LimitsUpdate{RPM: ptr[int64](5)})
		k2, _ := l.newKey(t, "shared@example.com")
		other, _ := l.newKey(t, "other@example.com")
		ok := 0
		var first *http.Response
		var firstRaw string
		for i := range 12 {
			resp, raw := l.post(t, []string{k1, k2}[i%2], chatBody("gpt-4o-mini", "hi", false))
			switch {
			case resp.StatusCode == 200:
				ok++
				if got := resp.Header.Get("x-ratelimit-limit-requests"); got != "5" {
					t.Errorf("request %d: x-ratelimit-limit-requests %q, want the account's 5", i, got)
				}
			case resp.StatusCode == 429 && first == nil:
				first, firstRaw = resp, raw
			case resp.StatusCode != 429:
				t.Fatalf("request %d: %d %s", i, resp.StatusCode, raw)
			}
		}
		if ok != 5 || first == nil {
			t.Fatalf("two keys of an account limited to 5 RPM were admitted %d times", ok)
		}
		if want := refusal(t, first, "requests", "account", acctID, 0); firstRaw != want {
			t.Errorf("429 body\n got %q\nwant %q", firstRaw, want)
		}
		if resp, raw := l.post(t, other, chatBody("gpt-4o-mini", "hi", false)); resp.StatusCode != 200 ||
			resp.Header.Get("x-ratelimit-limit-requests") != "" {
			t.Errorf("a key of another account: %d %v %s", resp.StatusCode, resp.Header, raw)
		}
	})
}

// TestRateLimitTokens: a TPM limit reserves the prompt plus max_tokens
// while a request runs, refuses what does not fit beside it, refuses for
// good what can never fit, and settles each request to the tokens it used
// so that short answers are not charged for their max_tokens.
func TestRateLimitTokens(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		// Streams take 12 × 50 ms: long enough to send a request beside one.
		l := startLimited(t, env, fakeopenai.Options{TokenDelay: 50 * time.Millisecond}, nil)
		key, keyID, _ := l.limitedKey(t, "tpm@example.com", store.LimitsUpdate{KeyID: "-", TPM: ptr[int64](2000)})

		first := tokensBody("hi", 1500, true)
		req, _ := http.NewRequest("POST", l.URL+"/v1/chat/completions", strings.NewReader(first))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		running, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer running.Body.Close()
		if running.StatusCode != 200 || header(t, running, "x-ratelimit-limit-tokens") != 2000 ||
			header(t, running, "x-ratelimit-remaining-tokens") != 2000-reserved(first, 1500) ||
			running.Header.Get("x-ratelimit-limit-requests") != "" {
			t.Fatalf("first request: %d %v", running.StatusCode, running.Header)
		}

		second := tokensBody("hi", 1500, false)
		resp, raw := l.post(t, key, second)
		if resp.StatusCode != 429 {
			t.Fatalf("a second max_tokens 1500 beside the first under TPM 2000: %d %s", resp.StatusCode, raw)
		}
		if want := refusal(t, resp, "tokens", "key", keyID, reserved(second, 1500)); raw != want {
			t.Errorf("429 body\n got %q\nwant %q", raw, want)
		}

		big := tokensBody("hi", 3000, false)
		resp, raw = l.post(t, key, big)
		want := fmt.Sprintf(`{"error":{"message":"Request too large for tokens per minute on key %s: limit 2000, requested %d. `+
			`Reduce the prompt or max_tokens; retrying will not help.","type":"rate_limit_error","param":null}}`+"\n", keyID, reserved(big, 3000))
		if resp.StatusCode != 429 || raw != want || resp.Header.Get("Retry-After") != "" || resp.Header.Get("retry-after-ms") != "" {
			t.Errorf("max_tokens above the limit: %d Retry-After %q retry-after-ms %q\n got %q\nwant %q", resp.StatusCode,
				resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"), raw, want)
		}

		// Once the first has finished, its ~1500 reserved tokens are
		// settled to the ~20 it used, and there is room again.
		if b, _ := io.ReadAll(running.Body); !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
			t.Fatalf("first stream: %q", b)
		}
		waitStatus(t, l, key, second, 200)

		// Under TPM 1000, requests reserving ~325 tokens (max_tokens 300)
		// would stop at the fourth if reservations were kept; settled to
		// the ~20 each uses, nearly all of ten pass. Not surely all: a
		// request is settled just after its answer is written, so the
		// next may reserve before that.
		small, _, _ := l.limitedKey(t, "tpm@example.com", store.LimitsUpdate{KeyID: "-", TPM: ptr[int64](1000)})
		body, ok := tokensBody("hi", 300, false), 0
		for range 10 {
			if resp, _ := l.post(t, small, body); resp.StatusCode == 200 {
				ok++
			}
		}
		if ok < 8 {
			t.Errorf("%d of 10 passed under TPM 1000; unsettled reservations would admit %d", ok, 1000/reserved(body, 300))
		}
	})
}

// waitStatus sends body until it is answered with status (a refused
// request takes nothing from the limits), for at most 3 s.
func waitStatus(t *testing.T, l *limited, key, body string, status int) *http.Response {
	t.Helper()
	var resp *http.Response
	waitFor(t, 3*time.Second, fmt.Sprintf("status %d", status), func() bool {
		var raw string
		resp, raw = l.post(t, key, body)
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("waiting for %d: %d %s", status, resp.StatusCode, raw)
		}
		return resp.StatusCode == status
	})
	return resp
}

// TestRateLimitChange: a limit set, raised or cleared by another process
// (a second store handle, then the CLI) applies to a key the server has
// cached, without a restart.
func TestRateLimitChange(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		l := startLimited(t, env, fakeopenai.Options{}, nil)
		key, keyID := l.newKey(t, "change@example.com")
		hi := chatBody("gpt-4o-mini", "hi", false)
		if resp, raw := l.post(t, key, hi); resp.StatusCode != 200 || resp.Header.Get("x-ratelimit-limit-requests") != "" {
			t.Fatalf("before any limit: %d %v %s", resp.StatusCode, resp.Header, raw)
		}
		other := storetest.Open(t, l.db)
		acct, _ := other.AccountByEmail(context.Background(), "change@example.com")
		if err := other.SetLimits(context.Background(), store.LimitsUpdate{AccountID: acct.ID, KeyID: keyID, RPM: ptr[int64](2)}); err != nil {
			t.Fatal(err)
		}
		// Until the change arrives requests are unlimited; from the one
		// that carries the new limit on, exactly 2 pass.
		set := time.Now()
		admitted := 0
		for refused := false; !refused; {
			resp, raw := l.post(t, key, hi)
			switch limit := resp.Header.Get("x-ratelimit-limit-requests"); {
			case limit == "" && resp.StatusCode == 200 && time.Since(set) < 2*time.Second:
			case limit == "2" && resp.StatusCode == 200:
				admitted++
			case limit == "2" && resp.StatusCode == 429:
				refused = true
			default:
				t.Fatalf("%v after storing RPM 2: %d %v %s", time.Since(set), resp.StatusCode, resp.Header, raw)
			}
		}
		t.Logf("RPM 2 applied within %v of being stored", time.Since(set))
		if admitted != 2 {
			t.Errorf("%d requests admitted under RPM 2", admitted)
		}
		cliLimits(t, l.db, "--key", keyID, "--rpm", "600")
		if resp := waitStatus(t, l, key, hi, 200); resp.Header.Get("x-ratelimit-limit-requests") != "600" {
			t.Errorf("after limits set --rpm 600: %v", resp.Header)
		}
		cliLimits(t, l.db, "--key", keyID, "--rpm", "0")
		// Cleared: unlimited again, as no default is configured.
		waitFor(t, 3*time.Second, "no limit after limits set --rpm 0", func() bool {
			resp, _ := l.post(t, key, hi)
			return resp.StatusCode == 200 && resp.Header.Get("x-ratelimit-limit-requests") == ""
		})
	})
}

// cliLimits runs switchyard limits set for change@example.com on db.
func cliLimits(t *testing.T, db string, args ...string) {
	t.Helper()
	var out, errOut strings.Builder
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return map[string]string{"SWITCHYARD_DATABASE_URL": db}[k] }}
	args = append([]string{"limits", "set", "--account", "change@example.com"}, args...)
	if code := cli.Run(context.Background(), args, env); code != 0 {
		t.Fatalf("switchyard %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
}

// TestUpstream429: the provider's own 429 is told apart from the
// gateway's: it says the provider is rate-limiting, and the gateway's
// headers show the key still has room.
func TestUpstream429(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		// The fake's Retry-After (2 s) is longer than the gateway waits
		// for: the first 429 is answered at once, and cools the only
		// deployment, so the second is answered without a call.
		l := startLimited(t, env, fakeopenai.Options{}, func(c *config.Config) { c.Routing.MaxRetryAfter = time.Second })
		key, _, _ := l.limitedKey(t, "up429@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](100)})
		for _, stream := range []bool{false, true} {
			resp, raw := l.post(t, key, chatBody("gpt-4o-mini", "fake:error:429", stream))
			var body struct{ Error map[string]any }
			json.Unmarshal([]byte(raw), &body)
			msg, _ := body.Error["message"].(string)
			if resp.StatusCode != 429 || body.Error["type"] != "rate_limit_error" ||
				!strings.HasPrefix(msg, map[bool]string{false: "The upstream provider openai is rate-limiting requests for this model. Try again in ",
					true: "Every upstream deployment of the model `gpt-4o-mini` is rate-limiting requests. Try again in "}[stream]) ||
				strings.Contains(msg, "Rate limit reached") {
				t.Errorf("stream %t: %d %s", stream, resp.StatusCode, raw)
			}
			checkErrorShape(t, raw)
			if resp.Header.Get("Retry-After") == "" || resp.Header.Get("x-ratelimit-limit-requests") != "100" ||
				header(t, resp, "x-ratelimit-remaining-requests") < 90 {
				t.Errorf("stream %t: headers %v", stream, resp.Header)
			}
		}
	})
}

// TestRateLimitDefaults: the configured limits.key_rpm applies to a key
// with none of its own, a stored RPM overrides it, and a stored 0 is the
// default again.
func TestRateLimitDefaults(t *testing.T) {
	l := startLimited(t, nil, fakeopenai.Options{}, func(c *config.Config) { c.Limits.KeyRPM = 2 })
	plain, _ := l.newKey(t, "defaults@example.com")
	own, _, _ := l.limitedKey(t, "defaults@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](4)})
	zero, _, _ := l.limitedKey(t, "defaults@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](0)})
	for _, tt := range []struct {
		name string
		key  string
		want int
	}{{"no limit of its own", plain, 2}, {"RPM 4", own, 4}, {"RPM 0", zero, 2}} {
		got := 0
		for range 6 {
			if resp, _ := l.post(t, tt.key, chatBody("gpt-4o-mini", "hi", false)); resp.StatusCode == 200 {
				got++
			}
		}
		if got != tt.want {
			t.Errorf("%s: %d admitted, want %d", tt.name, got, tt.want)
		}
	}
}

// TestRateLimitExactUnderLoad: 32 clients hammering one key with RPM 50
// over HTTP get exactly 50 answers. GCRA gives the whole minute's 50 at
// once, then one more every T = 60 s / 50 = 1.2 s after the first was
// taken; the clients stop sending after 1 s, so unless the last answer
// comes later than 1.2 s after the first request was sent (a very slow
// machine, said in the log), no unit can have come back.
func TestRateLimitExactUnderLoad(t *testing.T) {
	eachLimiter(t, func(t *testing.T, env map[string]string) {
		l := startLimited(t, env, fakeopenai.Options{}, nil)
		key, _, _ := l.limitedKey(t, "load@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](50)})
		ok, refused, window := hammerFor(t, l.URL, key, 32, time.Second)
		want := int64(50)
		if T := 1200 * time.Millisecond; window >= T {
			t.Logf("the last answer came %v after the first request: up to %d more may have been refilled", window, window/T)
			want += int64(window / T)
			if ok < 50 || ok > want {
				t.Errorf("admitted %d, want 50 to %d", ok, want)
			}
		} else if ok != want {
			t.Errorf("admitted %d of %d requests in %v, want exactly 50", ok, ok+refused, window)
		}
		if refused == 0 {
			t.Error("nothing was refused")
		}
		t.Logf("%d admitted, %d refused in %v", ok, refused, window)
	})
}

// hammerFor sends chat requests with key from n clients until d has
// passed, and returns how many were answered 200 and 429, and the time
// from before the first request to the last answer.
func hammerFor(t *testing.T, url, key string, n int, d time.Duration) (ok, refused int64, window time.Duration) {
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	body := chatBody("gpt-4o-mini", "hi", false)
	oks, refusals, lasts := make([]int64, n), make([]int64, n), make([]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			for time.Since(start) < d {
				req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lasts[i] = time.Since(start)
				switch resp.StatusCode {
				case 200:
					oks[i]++
				case 429:
					refusals[i]++
				default:
					t.Errorf("status %d: %s", resp.StatusCode, raw)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range n {
		ok, refused, window = ok+oks[i], refused+refusals[i], max(window, lasts[i])
	}
	return ok, refused, window
}
