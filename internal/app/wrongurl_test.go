package app_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"log/slog"

	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// syncBuffer is a bytes.Buffer a logger and a test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An OpenAI base URL without /v1 answers every call 404 with no
// model-not-found error: the client gets a 502 naming the provider (not
// 404 Model not found), the failure is logged at WARN with the path, and
// the request does not count against the key's rate limit.
func TestUpstreamWrongBaseURL(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r) // "404 page not found"
	}))
	t.Cleanup(up.Close)
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g := startLogged(t, storetest.SQLiteURL(t), map[string]string{
		"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "sk-upstream-secret",
	}, nil, log)
	l := &limited{gateway: g}
	key, _, _ := l.limitedKey(t, "wrongurl@example.com", store.LimitsUpdate{KeyID: "-", RPM: ptr[int64](1)})
	for i, stream := range []bool{false, true, false} {
		resp, raw := l.post(t, key, chatBody("gpt-4o-mini", "hi", stream))
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(raw, `"type":"upstream_error"`) || !strings.Contains(raw, "openai") {
			t.Errorf("request %d: %d %s, want 502 upstream_error naming openai", i, resp.StatusCode, raw)
		}
		if strings.Contains(raw, up.URL) || strings.Contains(raw, "sk-upstream-secret") {
			t.Errorf("request %d: the answer shows the upstream URL or key: %s", i, raw)
		}
	}
	out := logs.String()
	if !strings.Contains(out, `"level":"WARN"`) || !strings.Contains(out, `"upstream_path":"/chat/completions"`) {
		t.Errorf("logs %s, want a WARN with upstream_path /chat/completions", out)
	}
	if strings.Contains(out, "sk-upstream-secret") {
		t.Errorf("logs show the upstream key: %s", out)
	}
}
