package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/fakeupstream"
)

// hammer sends chat requests with key to url from n clients until each
// has seen a 429, and returns how many were answered 200.
func hammer(t *testing.T, urls []string, key string, n int) int64 {
	t.Helper()
	var ok atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(30 * time.Second)
	for i := range n {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("POST", urls[i%len(urls)]+"/v1/chat/completions",
					strings.NewReader(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
				case 429:
					return
				default:
					t.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	return ok.Load()
}

// TestReplicasShareRateLimit: three servers sharing one Redis admit a
// key's limit once, not three times.
func TestReplicasShareRateLimit(t *testing.T) {
	redisURL := os.Getenv("SWITCHYARD_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: the replica test needs Redis")
	}
	up := fakeupstream.Start(fakeupstream.Options{})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	t.Setenv("SWITCHYARD_REDIS_URL", redisURL)
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	key, id := createKey(t, dir, db)
	run(t, dir, db, "", "limits", "set", "--account", "owner@example.com", "--key", id, "--rpm", "60")
	var urls []string
	for range 3 {
		urls = append(urls, serve(t, dir, db).URL)
	}
	start := time.Now()
	got := hammer(t, urls, key, 48)
	// GCRA with 60 per minute: a burst of 60, then one more each second
	// the test ran. Three separate limits would admit 180.
	if extra := int64(time.Since(start) / time.Second); got < 60 || got > 60+extra+1 {
		t.Errorf("3 servers admitted %d in %v, want 60 (+1 per second elapsed)", got, time.Since(start))
	}
}

// TestRedisDownFailsOpen: with Redis unreachable a server keeps serving,
// limiting each key in its own memory.
func TestRedisDownFailsOpen(t *testing.T) {
	up := fakeupstream.Start(fakeupstream.Options{})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	t.Setenv("SWITCHYARD_REDIS_URL", "redis://127.0.0.1:1/0")
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	key, id := createKey(t, dir, db)
	run(t, dir, db, "", "limits", "set", "--account", "owner@example.com", "--key", id, "--rpm", "5")
	s := serve(t, dir, db)
	if got := hammer(t, []string{s.URL}, key, 4); got < 5 || got > 6 {
		t.Errorf("admitted %d with Redis down, want the key's 5 from the in-process limiter", got)
	}
}
