package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// chat sends one chat request with key to url and returns the answer.
func chat(t *testing.T, client *http.Client, url, key, body string) (*http.Response, string) {
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

const hello = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`

// hammerFor sends chat requests with key from n clients, spread over urls,
// until d has passed. It returns how many were answered 200 and 429, and
// the time from before the first request to the last answer.
func hammerFor(t *testing.T, urls []string, key string, n int, d time.Duration) (ok, refused int64, window time.Duration) {
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var counts [2]atomic.Int64
	var last atomic.Int64 // ns after start
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			for time.Since(start) < d {
				resp, raw := chat(t, client, urls[i%len(urls)], key, hello)
				if resp == nil {
					return
				}
				for now := int64(time.Since(start)); ; {
					if prev := last.Load(); now <= prev || last.CompareAndSwap(prev, now) {
						break
					}
				}
				switch resp.StatusCode {
				case 200:
					counts[0].Add(1)
				case 429:
					counts[1].Add(1)
				default:
					t.Errorf("status %d: %s", resp.StatusCode, raw)
					return
				}
			}
		})
	}
	wg.Wait()
	return counts[0].Load(), counts[1].Load(), time.Duration(last.Load())
}

// TestServersShareRPMExactly: three switchyard serve processes on one
// database (PostgreSQL when SWITCHYARD_TEST_POSTGRES_URL is set, else one
// SQLite file) and one Redis, given a key's RPM of 60 by `limits set`
// while they run, admit exactly 60 of 3×16 clients' requests in total,
// not 60 each.
func TestServersShareRPMExactly(t *testing.T) {
	redisURL := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: servers sharing a limit need Redis")
	}
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	// Long timeouts: a Redis answering late on a loaded machine must not
	// count as down here, where the count must be exact.
	t.Setenv("SWITCHYARD_REDIS_URL", patientRedis(t, redisURL))
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	if os.Getenv(storetest.PostgresEnv) != "" {
		db = storetest.PostgresURL(t)
	}
	key, id := createKey(t, dir, db)
	var urls []string
	for range 3 {
		s := serve(t, dir, db)
		// The key is cached before the limit is set: the change must
		// reach a running server's cache.
		if resp, raw := chat(t, http.DefaultClient, s.URL, key, hello); resp == nil || resp.StatusCode != 200 ||
			resp.Header.Get("x-ratelimit-limit-requests") != "" {
			t.Fatalf("before the limit: %v %s", resp, raw)
		}
		urls = append(urls, s.URL)
	}
	// The TPM limit is there to see the change arrive without spending a
	// request: a request too large for it is refused after its RPM unit
	// was taken and given back.
	run(t, dir, db, "", "limits", "set", "--account", "owner@example.com", "--key", id, "--rpm", "60", "--tpm", "1000000")
	set := time.Now()
	for _, u := range urls {
		waitLimit(t, u, key, set)
	}
	t.Logf("limits set reached the three servers in %v", time.Since(set))

	// GCRA gives the minute's 60 at once, then one more a second after the
	// first was taken. The clients stop after 700 ms, so unless the last
	// answer came a second or more after the first request (a very slow
	// machine, said in the log), nothing can have been refilled.
	ok, refused, window := hammerFor(t, urls, key, 48, 700*time.Millisecond)
	t.Logf("%d admitted, %d refused in %v", ok, refused, window)
	if window >= time.Second {
		t.Logf("the last answer came %v after the first request: up to %d more may have been refilled", window, window/time.Second)
		if ok < 60 || ok > 60+int64(window/time.Second) {
			t.Errorf("3 servers admitted %d, want 60 (+1 a second)", ok)
		}
	} else if ok != 60 {
		t.Errorf("3 servers sharing Redis admitted %d, want exactly 60 (three separate limits would admit 180)", ok)
	}
}

// patientRedis returns redisURL with 5 s timeouts, in place of the short
// redis.timeout that makes a slow Redis count as down.
func patientRedis(t *testing.T, redisURL string) string {
	u, err := url.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for _, k := range []string{"dial_timeout", "read_timeout", "write_timeout", "pool_timeout"} {
		q.Set(k, "5s")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// waitLimit waits until the server at url applies the key's new limits,
// seen in a request too large for its TPM that costs no request.
func waitLimit(t *testing.T, url, key string, since time.Time) {
	t.Helper()
	huge := `{"model":"gpt-4o-mini","max_tokens":2000000,"messages":[{"role":"user","content":"hi"}]}`
	for {
		resp, raw := chat(t, http.DefaultClient, url, key, huge)
		switch {
		case resp == nil:
			t.FailNow()
		case resp.StatusCode == 429 && strings.Contains(raw, "Request too large for tokens per minute"):
			return
		case resp.StatusCode != 400 || time.Since(since) > 10*time.Second:
			t.Fatalf("%s %v after limits set: %d %s", url, time.Since(since), resp.StatusCode, raw)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestRedisUnreachableLimitsPerProcess: with SWITCHYARD_REDIS_URL pointing
// at nothing, servers start and serve (fail-open), each limiting the key
// in its own memory: two servers admit the key's RPM of 5 each.
func TestRedisUnreachableLimitsPerProcess(t *testing.T) {
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	t.Setenv("SWITCHYARD_REDIS_URL", "redis://127.0.0.1:1/0")
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	key, id := createKey(t, dir, db)
	run(t, dir, db, "", "limits", "set", "--account", "owner@example.com", "--key", id, "--rpm", "5")
	for i, s := range []*server{serve(t, dir, db), serve(t, dir, db)} {
		var ok int
		for range 8 {
			resp, raw := chat(t, http.DefaultClient, s.URL, key, hello)
			switch {
			case resp == nil:
				t.FailNow()
			case resp.StatusCode == 200 && resp.Header.Get("x-ratelimit-limit-requests") == "5":
				ok++
			case resp.StatusCode != 429 || !strings.Contains(raw, `"type":"rate_limit_error"`):
				t.Fatalf("server %d with Redis down: %d %s", i, resp.StatusCode, raw)
			}
		}
		if ok != 5 {
			t.Errorf("server %d with Redis down admitted %d of 8, want its own 5", i, ok)
		}
	}
}
