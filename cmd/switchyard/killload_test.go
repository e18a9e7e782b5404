package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// TestKill9UnderLoad is the loss test at load: clients send plain and
// streamed chat requests as fast as the gateway answers them, with the
// meter's writer committing batches meanwhile, and the server is killed
// with SIGKILL in the middle. After a restart, every request a client saw
// answered whole has exactly one record, and no record names a request
// that was never sent.
func TestKill9UnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server twice under load")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	up := fakeopenai.Start(fakeopenai.Options{Words: 12})
	t.Cleanup(up.Close)
	t.Setenv("OPENAI_BASE_URL", up.URL)
	t.Setenv("OPENAI_API_KEY", "test-upstream-key")
	cfg := filepath.Join(dir, "switchyard.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, db, "--dev", "--config", cfg)
	out := strings.TrimSpace(s.stdout(t))
	key := out[strings.LastIndex(out, "\n")+1:]

	const clients = 32
	var (
		mu       sync.Mutex
		answered = map[string]bool{} // request IDs answered whole
		sent     = map[string]bool{}
		next     atomic.Int64
		wg       sync.WaitGroup
	)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := next.Add(1)
				id, stream := fmt.Sprintf("load-%d", n), n%2 == 0
				body := fmt.Sprintf(`{"model":"gpt-4o-mini","stream":%t,"messages":[{"role":"user","content":"hello %d"}]}`, stream, n)
				req, _ := http.NewRequest("POST", s.URL+"/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Request-Id", id)
				mu.Lock()
				sent[id] = true
				mu.Unlock()
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				whole := resp.StatusCode == http.StatusOK
				if stream {
					done := false
					sc := bufio.NewScanner(resp.Body)
					for sc.Scan() {
						done = done || sc.Text() == "data: [DONE]"
					}
					whole = whole && done
				} else {
					b, err := io.ReadAll(resp.Body)
					whole = whole && err == nil && bytes.Contains(b, []byte(`"usage"`))
				}
				resp.Body.Close()
				if whole {
					mu.Lock()
					answered[id] = true
					mu.Unlock()
				}
			}
		})
	}
	// Load until well past the writer's first batches (flush interval
	// 100 ms), then kill with requests in flight.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(answered)
		mu.Unlock()
		if n >= 2000 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd.Process.Kill()
	<-s.done
	s.done = nil
	stop()
	wg.Wait()
	written := countUsage(t, db)

	serve(t, dir, db, "--dev", "--config", cfg).stop(t)
	st := openStore(t, db)
	defer st.Close()
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs, err := st.ListUsage(rctx, "", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.RequestID]++
	}
	t.Logf("%d requests sent, %d answered whole, %d records written before the kill, %d after the restart",
		len(sent), len(answered), written, len(recs))
	if written == 0 || written >= int64(len(answered)) {
		t.Logf("the kill came when %d of %d answered requests were written: the test wants some written and some only journaled", written, len(answered))
	}
	for id := range answered {
		if seen[id] != 1 {
			t.Errorf("answered request %s has %d records, want 1", id, seen[id])
		}
	}
	for id, c := range seen {
		switch {
		case !sent[id]:
			t.Errorf("record for %s, which was never sent", id)
		case c > 1:
			t.Errorf("request %s has %d records", id, c)
		}
	}
}
