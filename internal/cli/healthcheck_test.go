package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchyard-gw/switchyard/internal/config"
)

func TestReadyURL(t *testing.T) {
	tests := []struct {
		listen string
		tls    bool
		want   string
	}{
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080/readyz"},
		{"0.0.0.0:9000", false, "http://127.0.0.1:9000/readyz"},
		{":8080", false, "http://127.0.0.1:8080/readyz"},
		{"[::]:8080", false, "http://[::1]:8080/readyz"},
		{"gw.internal:8443", true, "https://gw.internal:8443/readyz"},
	}
	for _, tt := range tests {
		cfg := config.Default()
		cfg.Server.Listen = tt.listen
		if tt.tls {
			cfg.TLS = config.TLS{CertFile: "c.pem", KeyFile: "k.pem"}
		}
		if got := readyURL(&cfg); got != tt.want {
			t.Errorf("readyURL(%q, tls %v) = %q, want %q", tt.listen, tt.tls, got, tt.want)
		}
	}
}

func TestHealthcheck(t *testing.T) {
	var unready atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || unready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	run := func(args ...string) (int, string) {
		var out strings.Builder
		env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(k string) string {
			if k == "SWITCHYARD_LISTEN" {
				return strings.TrimPrefix(srv.URL, "http://")
			}
			return ""
		}}
		return Run(context.Background(), append([]string{"healthcheck"}, args...), env), out.String()
	}
	if code, out := run(); code != 0 {
		t.Errorf("ready server: exit %d: %s", code, out)
	}
	if code, out := run("--url", srv.URL+"/other"); code != 1 || !strings.Contains(out, "503") {
		t.Errorf("--url to a path answering 503: exit %d: %s", code, out)
	}
	unready.Store(true)
	if code, out := run(); code != 1 || !strings.Contains(out, "not ready") {
		t.Errorf("unready server: exit %d: %s", code, out)
	}
	srv.Close()
	if code, out := run(); code != 1 {
		t.Errorf("no server: exit %d: %s", code, out)
	}
}
