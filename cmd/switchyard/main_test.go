package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/cli"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// These tests run the real command in child processes: the test binary
// re-executes itself as switchyard when SWITCHYARD_TEST_AS_MAIN is set.
func TestMain(m *testing.M) {
	if os.Getenv("SWITCHYARD_TEST_AS_MAIN") == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.OSEnv()))
	}
	os.Exit(m.Run())
}

// command returns switchyard with args, working in dir, on database db.
func command(ctx context.Context, dir, db string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SWITCHYARD_TEST_AS_MAIN=1", "SWITCHYARD_LISTEN=127.0.0.1:0")
	if db != "" {
		cmd.Env = append(cmd.Env, "SWITCHYARD_DATABASE_URL="+db)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// run runs switchyard to completion and returns its stdout.
func run(t *testing.T, dir, db, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(ctx, dir, db, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("switchyard %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// server is a switchyard serve child process.
type server struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
	out  lockedBuffer
}

// lockedBuffer collects a child's stdout while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stdout waits until the child has printed what serve --dev prints, up to
// the dev key line (it comes before the listen log, but on another pipe).
func (s *server) stdout(t *testing.T) string {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out := s.out.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if last := lines[len(lines)-1]; strings.HasSuffix(out, "\n") &&
			(strings.HasPrefix(last, "sk-switchyard-") || strings.HasPrefix(last, "For a new one: switchyard keys create")) {
			return out
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("serve printed only %q", s.out.String())
	return ""
}

// serve starts switchyard serve and waits until it listens. It is stopped
// with SIGTERM when the test ends.
func serve(t *testing.T, dir, db string, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := command(ctx, dir, db, append([]string{"serve"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&s.out, stdout) })
	wg.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "switchyard listening" {
				addr <- line.Addr
			}
			if testing.Verbose() {
				t.Logf("server: %s", sc.Text())
			}
		}
	})
	go func() { wg.Wait(); s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		s.stop(t)
		cancel()
	})
	select {
	case a := <-addr:
		s.URL = "http://" + a
	case err := <-s.done:
		t.Fatalf("serve exited before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start within 60s")
	}
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil || s.done == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("server exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Error("server did not stop within 30s of SIGTERM")
	}
	s.done = nil
}

func status(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// createKey creates an account and a key through the CLI and returns the
// key and its ID.
func createKey(t *testing.T, dir, db string) (key, id string) {
	t.Helper()
	run(t, dir, db, "correct horse battery\n", "accounts", "create", "--email", "owner@example.com", "--password-stdin")
	var created struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	out := run(t, dir, db, "", "keys", "create", "--account", "owner@example.com", "--name", "ci", "--json")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Key == "" {
		t.Fatalf("keys create --json printed %q: %v", out, err)
	}
	// The plain form prints the key alone on its last line.
	plain := strings.TrimSpace(run(t, dir, db, "", "keys", "create", "--account", "owner@example.com", "--name", "second"))
	lines := strings.Split(plain, "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "sk-switchyard-") || len(last) != len("sk-switchyard-")+32 {
		t.Errorf("last line of keys create is %q, want the key alone", last)
	}
	return created.Key, created.ID
}

// waitRefused polls until the server refuses key and returns how long that
// took after since.
func waitRefused(t *testing.T, url, key string, since time.Time) time.Duration {
	t.Helper()
	for status(t, url, key) != http.StatusUnauthorized {
		if time.Since(since) > 10*time.Second {
			t.Fatalf("%s still accepts the revoked key after 10s", url)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(since)
}

func TestCLIRevokeReachesRunningSQLiteServer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	key, id := createKey(t, dir, db)
	s := serve(t, dir, db)
	if got := status(t, s.URL, key); got != http.StatusOK {
		t.Fatalf("before revoke: %d", got)
	}
	run(t, dir, db, "", "keys", "revoke", id)
	took := waitRefused(t, s.URL, key, time.Now())
	fmt.Printf("revocation propagation (CLI process -> SQLite server): %v\n", took)
	t.Logf("revocation propagation (CLI process -> SQLite server): %v", took)

	// Revoked stays revoked across a restart and a second migrate.
	s.stop(t)
	run(t, dir, db, "", "migrate")
	s2 := serve(t, dir, db)
	if got := status(t, s2.URL, key); got != http.StatusUnauthorized {
		t.Errorf("after restart the revoked key gets %d, want 401", got)
	}
	out := run(t, dir, db, "", "keys", "list", "--account", "owner@example.com", "--json")
	if !strings.Contains(out, `"status": "revoked"`) || strings.Contains(out, key[len("sk-switchyard-"):]) {
		t.Errorf("keys list: %s", out)
	}
}

func TestCLIRevokeReachesTwoPostgresServers(t *testing.T) {
	db := storetest.PostgresURL(t)
	dir := t.TempDir()
	key, id := createKey(t, dir, db)
	a, b := serve(t, dir, db), serve(t, dir, db)
	for _, s := range []*server{a, b} {
		if got := status(t, s.URL, key); got != http.StatusOK {
			t.Fatalf("before revoke %s: %d", s.URL, got)
		}
	}
	run(t, dir, db, "", "keys", "revoke", id)
	revoked := time.Now()
	var wg sync.WaitGroup
	took := make([]time.Duration, 2)
	for i, s := range []*server{a, b} {
		wg.Go(func() { took[i] = waitRefused(t, s.URL, key, revoked) })
	}
	wg.Wait()
	fmt.Printf("revocation propagation (CLI process -> PostgreSQL servers): server A %v, server B %v\n", took[0], took[1])
	t.Logf("revocation propagation: server A %v, server B %v", took[0], took[1])
}

func TestDevMode(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, dir, "", "--dev")
	out := s.stdout(t)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "sk-switchyard-") {
		t.Fatalf("serve --dev printed %q, want the dev key on the last line", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "switchyard.db")); err != nil {
		t.Errorf("no switchyard.db in the working directory: %v", err)
	}
	if got := status(t, s.URL, key); got != http.StatusOK {
		t.Errorf("dev key: %d", got)
	}
	if got := status(t, s.URL, "sk-switchyard-"+strings.Repeat("x", 32)); got != http.StatusUnauthorized {
		t.Errorf("wrong key: %d", got)
	}
	m := regexp.MustCompile(`Dashboard: (http://\S+)\nSign in as dev@switchyard.local with the password \(shown once, keep it\): (\S+)\n`).FindStringSubmatch(out)
	if m == nil || m[1] != s.URL+"/dashboard" {
		t.Fatalf("serve --dev printed %q, want the dashboard's address and the dev password", out)
	}
	devPassword := m[2]
	if got := signIn(t, s.URL, "dev@switchyard.local", devPassword); got != "/dashboard" {
		t.Errorf("signing in with the dev password: redirected to %q", got)
	}
	s.stop(t)
	s2 := serve(t, dir, "", "--dev")
	if out := s2.stdout(t); strings.Contains(out, key) || strings.Contains(out, devPassword) || !strings.Contains(out, "shown only once") ||
		!strings.Contains(out, "the password was shown when it was made") {
		t.Errorf("second --dev start printed %q", out)
	}
	if got := status(t, s2.URL, key); got != http.StatusOK {
		t.Errorf("dev key after restart: %d", got)
	}
}

// signIn signs in to the dashboard at base as a browser would and
// returns where the form redirects ("/dashboard" on success).
func signIn(t *testing.T, base, email, pw string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/dashboard/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if token == nil {
		t.Fatalf("no form token on the sign-in page:\n%s", page)
	}
	resp, err = c.PostForm(base+"/dashboard/login", url.Values{"csrf": {string(token[1])}, "email": {email}, "password": {pw}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Location")
}

func TestBadConfigStopsStartup(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(cfg, []byte("server:\n  read_timeout: soon\n"), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(ctx, dir, "", "serve", "--config", cfg)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, output %s", err, out)
	}
	if !strings.Contains(string(out), "server.read_timeout") || !strings.Contains(string(out), "duration") {
		t.Errorf("message %q does not name the key and what was expected", out)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"nope"},
		{"keys"},
		{"keys", "create", "--account", "a@example.com"},
		{"keys", "revoke"},
		{"accounts", "create", "--email", "not-an-email"},
		{"serve", "extra"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := command(ctx, dir, filepath.Join(dir, "x.db"), args...)
		out, err := cmd.CombinedOutput()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("switchyard %v: %v, want exit status 2; output %s", args, err, out)
		}
	}
	if out := run(t, dir, "", "", "version"); !strings.HasPrefix(out, "switchyard ") {
		t.Errorf("version printed %q", out)
	}
}

func TestModelsCommand(t *testing.T) {
	dir := t.TempDir()
	out := run(t, dir, "", "", "models")
	for _, want := range []string{"gpt-5.5", "claude-opus-5", "gemini-2.5-flash", "llama-3.3-70b-instruct", "text-embedding-3-large", "retired", "unreachable"} {
		if !strings.Contains(out, want) {
			t.Errorf("models output lacks %q", want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := command(ctx, dir, "", "models", "--json")
	cmd.Env = append(cmd.Env, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=http://127.0.0.1:9/v1",
		"ANTHROPIC_API_KEY=sk-ant-test", "GEMINI_API_KEY=test")
	raw, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ ID, Status, Provider string }
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	chat := 0
	for _, r := range rows {
		switch r.ID {
		case "gpt-5.5": // no retirement announced
			if r.Provider != "openai" || r.Status != "available" {
				t.Errorf("gpt-5.5 with OpenAI configured: %+v", r)
			}
		case "claude-opus-5", "gemini-3.5-flash":
			if r.Status != "available" || r.Provider == "" {
				t.Errorf("%s with its provider's key set: %+v", r.ID, r)
			}
		case "llama-3.1-8b-instruct": // served by Groq, not configured
			if r.Status != "unreachable" {
				t.Errorf("llama-3.1-8b-instruct without GROQ_API_KEY: %+v", r)
			}
		case "gpt-3.5-turbo":
			if r.Status != "retired" {
				t.Errorf("gpt-3.5-turbo: %+v", r)
			}
		}
		if !strings.HasPrefix(r.ID, "text-embedding") && !strings.HasPrefix(r.ID, "gemini-embedding") {
			chat++
		}
	}
	if chat < 50 {
		t.Errorf("%d chat/completion models in the catalogue, want at least 50", chat)
	}
}

func TestAllowListCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gw.db")
	run(t, dir, db, "", "accounts", "create", "--email", "o@example.com")
	out := run(t, dir, db, "", "keys", "create", "--account", "o@example.com", "--name", "n", "--models", "mock-chat, llama-*", "--json")
	if !strings.Contains(out, `"mock-chat"`) || !strings.Contains(out, `"llama-*"`) {
		t.Errorf("keys create --models: %s", out)
	}
	if out := run(t, dir, db, "", "accounts", "update", "--email", "o@example.com", "--models", "mock-chat"); !strings.Contains(out, "mock-chat") {
		t.Errorf("accounts update: %s", out)
	}
	if out := run(t, dir, db, "", "accounts", "list", "--json"); !strings.Contains(out, `"mock-chat"`) {
		t.Errorf("accounts list: %s", out)
	}
	if out := run(t, dir, db, "", "accounts", "update", "--email", "o@example.com", "--models", "all"); !strings.Contains(out, "may use: all") {
		t.Errorf("accounts update all: %s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"--name", "n", "--models", "gpt-*-x"},
		{"--name", "n", "--models", "gpt-4o,\xff"},
		{"--name", "ci\x1b[31m"},
		{"--name", "\xff\xfe"},
		{"--name", strings.Repeat("n", 101)},
		{"--name", " "},
	} {
		bad := command(ctx, dir, db, append([]string{"keys", "create", "--account", "o@example.com"}, args...)...)
		out, err := bad.CombinedOutput()
		if err == nil || !strings.Contains(string(out), args[len(args)-2]+":") {
			t.Errorf("keys create %q: %v, %s", args, err, out)
		}
	}
	if out := run(t, dir, db, "", "keys", "list", "--account", "o@example.com", "--json"); strings.Count(out, `"id"`) != 1 {
		t.Errorf("refused keys were created: %s", out)
	}
}

// TestCLIAccountsUpdate sets a password and disables and enables an
// account from the command line, against a running server: the disable
// refuses the account's key, the enable lets it back, and the new
// password signs in.
func TestCLIAccountsUpdate(t *testing.T) {
	dir := t.TempDir()
	key, _ := createKey(t, dir, "")
	s := serve(t, dir, "")
	if got := status(t, s.URL, key); got != http.StatusOK {
		t.Fatalf("before: %d", got)
	}
	out := run(t, dir, "", "", "accounts", "update", "--email", "owner@example.com", "--disable")
	if !strings.Contains(out, "disabled") {
		t.Errorf("--disable printed %q", out)
	}
	waitRefused(t, s.URL, key, time.Now())
	run(t, dir, "", "a brand new password\n", "accounts", "update", "--email", "owner@example.com", "--enable", "--password-stdin")
	deadline := time.Now().Add(5 * time.Second)
	for status(t, s.URL, key) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the key is still refused 5 s after --enable")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := signIn(t, s.URL, "owner@example.com", "a brand new password"); got != "/dashboard" {
		t.Errorf("sign-in with the new password: redirected to %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, args := range [][]string{
		{"--disable", "--enable"},
		{},
		{"--password-stdin"}, // too short: the stdin below is empty
	} {
		cmd := command(ctx, dir, "", append([]string{"accounts", "update", "--email", "owner@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("accounts update %v succeeded: %s", args, out)
		}
	}
}
