package app

import (
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestRedisLogsJSON checks that the Redis client's messages reach the
// app's JSON log (issue 13: go-redis wrote plain text lines to stderr).
func TestRedisLogsJSON(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	setRedisLogger(slog.New(slog.NewJSONHandler(out, nil)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: the pool logs its failed dials
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(t.Context()).Err(); err == nil {
		t.Fatal("ping of a closed port succeeded")
	}
	logged, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(logged)), "\n")
	if lines[0] == "" {
		t.Fatal("nothing logged")
	}
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["component"] != "redis" || m["level"] != "WARN" {
			t.Errorf("log line %q: %v; want JSON with component redis at WARN", line, err)
		}
	}
}
