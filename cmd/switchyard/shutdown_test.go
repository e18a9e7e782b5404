package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/meter"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// slowServer starts switchyard serve --dev in dir in front of a fake
// OpenAI that streams one word every 100 ms for minutes, with the extra
// config lines given, and returns it with its dev key.
func slowServer(t *testing.T, dir, db, config string) (*server, string) {
	t.Helper()
	up := fakeopenai.Start(fakeopenai.Options{TokenDelay: 100 * time.Millisecond, Words: 3000})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	cfg := filepath.Join(dir, "switchyard.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, db, "--dev", "--config", cfg)
	out := strings.TrimSpace(s.stdout(t))
	return s, out[strings.LastIndex(out, "\n")+1:]
}

// streams are n streaming chat requests read by the test, each with the
// request ID stream-<i>.
type streams struct {
	chunks []atomic.Int64 // data events each has received
	cut    []atomic.Bool  // each ended with the gateway's shutdown error event
	wg     sync.WaitGroup
}

// openStreams starts n streams and returns once each has received at
// least that many chunks. The streams are read until the server cuts
// them.
func openStreams(t *testing.T, url, key string, n int, least int64) *streams {
	t.Helper()
	s := &streams{chunks: make([]atomic.Int64, n), cut: make([]atomic.Bool, n)}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); s.wg.Wait() })
	for i := range n {
		s.wg.Go(func() {
			body := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"tell me a long story"}]}`
			req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Request-Id", fmt.Sprintf("stream-%d", i))
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("stream %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("stream %d: status %d", i, resp.StatusCode)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				switch line := sc.Text(); {
				case strings.HasPrefix(line, `data: {"id"`):
					s.chunks[i].Add(1)
				case strings.HasPrefix(line, `data: {"error"`):
					s.cut[i].Store(strings.Contains(line, "shutting down"))
				}
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for i := range s.chunks {
		for s.chunks[i].Load() < least {
			if time.Now().After(deadline) || t.Failed() {
				t.Fatalf("stream %d has %d chunks after 30s, want %d", i, s.chunks[i].Load(), least)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return s
}

// restartedRecords starts the server in dir again (which recovers what
// its journal holds), stops it, and returns the ledger's record of each
// of the n streams, nil for those that have none (an error).
func restartedRecords(t *testing.T, dir, db, what string, n int) []*meter.Record {
	t.Helper()
	serve(t, dir, db, "--dev", "--config", filepath.Join(dir, "switchyard.yaml")).stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := openStore(t, db)
	defer st.Close()
	recs, err := st.ListUsage(ctx, "", 10000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*meter.Record, n)
	for i := range recs {
		var k int
		if _, err := fmt.Sscanf(recs[i].RequestID, "stream-%d", &k); err == nil && k >= 0 && k < n {
			out[k] = &recs[i]
		}
	}
	t.Logf("%s: %d records after restart", what, len(recs))
	for i, r := range out {
		if r == nil {
			t.Errorf("stream %d: no record", i)
		}
	}
	return out
}

// TestSIGTERMRecordsCutStreams: streams longer than the shutdown grace
// are cut at its end, and each is recorded, partial, with what it sent.
func TestSIGTERMRecordsCutStreams(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	s, key := slowServer(t, dir, db, "server:\n  shutdown_grace: 500ms\n")
	const n = 20
	st := openStreams(t, s.URL, key, n, 3)
	s.stop(t)
	st.wg.Wait()

	recs := restartedRecords(t, dir, db, fmt.Sprintf("SIGTERM with %d streams longer than the grace", n), n)
	for i, r := range recs {
		sent := st.chunks[i].Load()
		switch {
		case r == nil: // reported by restartedRecords
		case !r.Cancelled || !r.Streamed || r.Status != http.StatusServiceUnavailable || r.Cost <= 0:
			t.Errorf("stream %d: record %+v, want a cancelled stream with status 503 and a cost", i, r)
		case !st.cut[i].Load():
			t.Errorf("stream %d: the client did not get the shutdown error event", i)
		case r.CompletionTokens < sent-1:
			t.Errorf("stream %d: %d completion tokens recorded, the client received %d chunks", i, r.CompletionTokens, sent)
		}
	}
}
