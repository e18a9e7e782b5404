package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 15: SIGHUP re-reads the configuration file; a model added to it
// is served without a restart, and the process keeps running.
func TestSIGHUPReloadsConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "switchyard.yaml")
	if err := os.WriteFile(path, []byte("routing: {retries: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, "", "--dev", "--config", path)
	out := strings.Split(strings.TrimSpace(s.stdout(t)), "\n")
	key := out[len(out)-1]
	modelStatus := func() int {
		req, _ := http.NewRequest("GET", s.URL+"/v1/models/reloaded-chat", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := modelStatus(); got != http.StatusNotFound {
		t.Fatalf("reloaded-chat before the reload: %d, want 404", got)
	}
	added := "routing: {retries: 1}\nmodels:\n  add:\n    - id: reloaded-chat\n      mode: chat\n" +
		"      deployments: [{provider: mock, upstream_id: mock-chat, weight: 2}]\n      fallbacks: [mock-chat]\n"
	if err := os.WriteFile(path, []byte(added), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for modelStatus() != http.StatusOK {
		select {
		case err := <-s.done:
			s.done = nil
			t.Fatalf("serve exited on SIGHUP: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("reloaded-chat not served 10s after SIGHUP")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
