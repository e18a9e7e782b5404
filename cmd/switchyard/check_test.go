package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestModelsCheck probes each configured provider: a base URL that
// answers 404 (here OpenAI's without /v1) is reported misconfigured, and
// its models with it; the exit status is 1.
func TestModelsCheck(t *testing.T) {
	wrong := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(wrong.Close)
	right := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" || r.Header.Get("X-Api-Key") != "sk-ant-test" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[],"has_more":false}`))
	}))
	t.Cleanup(right.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := command(ctx, t.TempDir(), "", "models", "--check")
	cmd.Env = append(cmd.Env, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+wrong.URL,
		"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL="+right.URL)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	var openaiLine, anthropicLine, gptLine string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && f[0] == "openai":
			openaiLine = line
		case len(f) > 1 && f[0] == "anthropic":
			anthropicLine = line
		case len(f) > 1 && f[0] == "gpt-5.5":
			gptLine = line
		}
	}
	if !strings.Contains(openaiLine, "misconfigured") || !strings.Contains(openaiLine, "/chat/completions") && !strings.Contains(openaiLine, "/models") {
		t.Errorf("openai line %q, want misconfigured and the path; output:\n%s", openaiLine, out)
	}
	if !strings.Contains(anthropicLine, "ok") {
		t.Errorf("anthropic line %q, want ok; output:\n%s", anthropicLine, out)
	}
	if !strings.Contains(gptLine, "misconfigured") {
		t.Errorf("gpt-5.5 line %q, want misconfigured", gptLine)
	}
	if strings.Contains(string(out), "sk-test") || strings.Contains(string(out), "sk-ant-test") {
		t.Errorf("output shows a key:\n%s", out)
	}
}
