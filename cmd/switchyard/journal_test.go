package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store"
)

// TestKill9LosesNoUsage answers requests, kills the server with SIGKILL
// before its writer has written a single record (the flush interval is an
// hour), and counts what the next start recovers from the journal: every
// answered request.
func TestKill9LosesNoUsage(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	cfg := filepath.Join(dir, "switchyard.yaml")
	if err := os.WriteFile(cfg, []byte("metering:\n  flush_interval: 1h\n  batch_size: 1000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, db, "--dev", "--config", cfg)
	out := strings.TrimSpace(s.stdout(t))
	key := out[strings.LastIndex(out, "\n")+1:]

	const n = 60
	bodies := []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"hello there"}]}`},
		{"/v1/chat/completions", `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"stream it"}]}`},
		{"/v1/embeddings", `{"model":"mock-embedding","input":"embed me"}`},
	}
	for i := range n {
		b := bodies[i%len(bodies)]
		req, _ := http.NewRequest("POST", s.URL+b.path, strings.NewReader(b.body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	s.cmd.Process.Kill()
	<-s.done
	s.done = nil

	if got := countUsage(t, db); got != 0 {
		t.Fatalf("%d records were written before the kill; the test needs none", got)
	}
	serve(t, dir, db, "--dev", "--config", cfg)
	if got := countUsage(t, db); got != n {
		t.Errorf("after restart the ledger holds %d records, want %d", got, n)
	}
}

// TestKill9RecordsStreamsInFlight: streams under way when the server is
// killed with SIGKILL are recorded, as estimates, by the next start.
func TestKill9RecordsStreamsInFlight(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "switchyard.db")
	s, key := slowServer(t, dir, db, "")
	const n = 50
	st := openStreams(t, s.URL, key, n, 1)
	s.cmd.Process.Kill()
	<-s.done
	s.done = nil
	st.wg.Wait()
	if got := countUsage(t, db); got != 0 {
		t.Fatalf("%d records were written before the kill; the test needs none", got)
	}

	recs := restartedRecords(t, dir, db, fmt.Sprintf("SIGKILL with %d streams in flight", n), n)
	for i, r := range recs {
		switch {
		case r == nil: // reported by restartedRecords
		case !r.Estimated || !r.Cancelled || !r.Streamed || r.Status != http.StatusOK || r.PromptTokens <= 0 ||
			r.CompletionTokens <= 0 || r.Cost <= 0 || r.TTFT <= 0:
			t.Errorf("stream %d: record %+v, want an estimated, cancelled stream with status 200, tokens and a cost", i, r)
		}
	}
}

func countUsage(t *testing.T, db string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := openStore(t, db)
	defer st.Close()
	n, err := st.CountUsage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openStore opens the database db; the caller closes it.
func openStore(t *testing.T, db string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, db, store.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
