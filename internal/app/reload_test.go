package app_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// holdUpstream is an OpenAI-compatible upstream whose streams send one
// chunk, then wait for release before they end.
func holdUpstream(t *testing.T, release <-chan struct{}) *httptest.Server {
	t.Helper()
	chunk := func(model, delta, finish string) string {
		return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":%q,"choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", model, delta, finish)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		model := "held"
		if !strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, model)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		io.WriteString(w, chunk(model, `{"role":"assistant","content":"first"}`, "null"))
		rc.Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, chunk(model, `{"content":" last"}`, "null"))
		io.WriteString(w, chunk(model, `{}`, `"stop"`))
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

// Issue 15: SIGHUP re-reads the file and swaps the routing table: a model
// added to the file is served at once, a stream in flight across the
// reload completes, a bad file is refused with its key path and changes
// nothing, and settings that cannot change live are logged as needing a
// restart.
func TestReload(t *testing.T) {
	release := make(chan struct{})
	up := holdUpstream(t, release)
	dir := t.TempDir()
	path := filepath.Join(dir, "switchyard.yaml")
	db := storetest.SQLiteURL(t)
	base := fmt.Sprintf("providers:\n  - {type: openai_compatible, name: up, base_url: %q, models: [held]}\n", up.URL+"/v1")
	load := func(content string) (*config.Config, error) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(path, func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		// What the test's app runs with besides the file (see startLogged).
		c.Server.Listen, c.Server.ShutdownGrace, c.Database.URL = "127.0.0.1:0", 2e9, db
		c.Auth.ChangePollInterval, c.Redis.Timeout = 5e6, 5e9
		return c, nil
	}
	first, err := load(base)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	g := startLogged(t, db, nil, func(c *config.Config) { *c = *first }, slog.New(slog.NewJSONHandler(&logs, nil)))
	key, _ := g.newKey(t, "reload@example.com")
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("extra", "hi", false)); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("extra before the reload: %d %s, want 404", resp.StatusCode, raw)
	}

	// A stream starts on the first table.
	req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions", strings.NewReader(chatBody("held", "hi", true)))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "first") {
		t.Fatalf("stream's first line %q, %v", line, err)
	}

	// A bad file is refused, naming the key; nothing changes.
	bad := base + "models:\n  add:\n    - {id: extra, mode: chat, deployments: [{provider: up, upstream_id: held}], fallbacks: [helld]}\n"
	cfg, err := load(bad)
	if err == nil {
		err = g.App.Reload(cfg)
	}
	if err == nil || !strings.Contains(err.Error(), "models.add[0].fallbacks[0]") || !strings.Contains(err.Error(), "did you mean held?") {
		t.Errorf("reload of a bad file: %v, want the key path and a suggestion", err)
	}
	if _, err := load(base + "routing: {retries: 11}\n"); err == nil || !strings.Contains(err.Error(), "routing.retries") {
		t.Errorf("load of a bad routing section: %v", err)
	}
	if resp, _, _ := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("extra", "hi", false)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("extra after a refused reload: %d, want 404", resp.StatusCode)
	}

	// A good file: a new model, new knobs, and a change that needs a restart.
	good := base + "models:\n  add:\n    - {id: extra, mode: chat, deployments: [{provider: up, upstream_id: held, weight: 2}], fallbacks: [held]}\n" +
		"routing: {retries: 5}\nserver: {read_timeout: 2m}\n"
	if cfg, err = load(good); err != nil {
		t.Fatal(err)
	}
	if err := g.App.Reload(cfg); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("extra", "hi", false)); resp.StatusCode != http.StatusOK {
		t.Errorf("extra after the reload: %d %s, want 200", resp.StatusCode, raw)
	}
	if got := g.App.RetriesForTest(); got != 5 {
		t.Errorf("retries after the reload: %d, want 5", got)
	}
	if out := logs.String(); !strings.Contains(out, "needs a restart") || !strings.Contains(out, `"key":"server"`) {
		t.Errorf("logs lack the restart notice for server:\n%s", out)
	}

	// The stream that started before the reload ends normally.
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || !strings.Contains(string(rest), "last") || !strings.HasSuffix(strings.TrimSpace(string(rest)), "data: [DONE]") {
		t.Errorf("rest of the stream: %q, %v; want it to end with [DONE]", rest, err)
	}
}
