package cli

// The deployment files under deploy/ (Dockerfile, compose.yaml, the
// Kubernetes manifests, the systemd unit, nginx.conf) are kept in step
// with the binary here (issue 17): every command line they give it must
// parse with the real commands' flag sets (checkArgs), every variable they
// set must be one its configuration reads, every configuration file they
// mount must load and validate, the ports they wire must be the one it
// listens on, the probe paths must answer, and the stop timeouts must
// cover its drain.

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/api"
	"github.com/switchyard-gw/switchyard/internal/config"
)

// drainMargin is what a stop timeout must leave beyond
// server.shutdown_grace: the server's cut of what still runs afterwards
// (up to 5 s, internal/server/drain.go) and the meter's last flush.
const drainMargin = 10 * time.Second

// launch is how a deployment file starts the binary: its command line
// (without the program), its environment, and the configuration files it
// provides (path where the binary runs → path here).
type launch struct {
	name  string
	args  []string
	env   map[string]string
	files map[string]string
}

// runtimeVars are the variables the Go runtime reads for itself, which a
// deployment may set (GOMEMLIMIT under a container memory limit).
var runtimeVars = map[string]bool{"GOMEMLIMIT": true, "GOGC": true, "GOMAXPROCS": true, "GODEBUG": true}

// check checks the command line and the variables, and returns the
// configuration the binary would run with.
func (l launch) check(t *testing.T) *config.Config {
	t.Helper()
	if err := checkArgs(l.args); err != nil {
		t.Errorf("%s: switchyard %s: %v", l.name, strings.Join(l.args, " "), err)
	}
	read := map[string]bool{}
	getenv := func(k string) string {
		read[k] = true
		if k == "SWITCHYARD_CONFIG" {
			return l.file(t, l.env[k])
		}
		return l.env[k]
	}
	cfg, err := loadConfig(Env{Getenv: getenv}, l.file(t, configFlag(l.args)))
	if err != nil {
		t.Fatalf("%s: the configuration does not load: %v", l.name, err)
	}
	for name := range l.env {
		if !read[name] && !runtimeVars[name] {
			t.Errorf("%s sets %s, which switchyard does not read", l.name, name)
		}
	}
	return cfg
}

// file maps a configuration path of the deployment to the file here.
func (l launch) file(t *testing.T, path string) string {
	t.Helper()
	if path == "" {
		return ""
	}
	local, ok := l.files[path]
	if !ok {
		t.Fatalf("%s: configuration file %s is not one the deployment provides (it has %v)", l.name, path, l.files)
	}
	return local
}

// configFlag returns the value of --config in args, or "".
func configFlag(args []string) string {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "config" {
			continue
		}
		if hasValue {
			return value
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func listenPort(t *testing.T, cfg *config.Config) string {
	t.Helper()
	_, port, err := net.SplitHostPort(cfg.Server.Listen)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// checkProbe checks that the API answers path with 200, as a probe needs.
func checkProbe(t *testing.T, what, path string) {
	t.Helper()
	rec := httptest.NewRecorder()
	api.New(api.Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Errorf("%s probes %s, which answers %d", what, path, rec.Code)
	}
}

// checkStopTimeout checks that a stop timeout covers the drain of cfg.
func checkStopTimeout(t *testing.T, what string, timeout time.Duration, cfg *config.Config) {
	t.Helper()
	if want := cfg.Server.ShutdownGrace + drainMargin; timeout < want {
		t.Errorf("%s is %s: the server may drain for server.shutdown_grace %s plus up to %s; want at least %s",
			what, timeout, cfg.Server.ShutdownGrace, drainMargin, want)
	}
}

// image is what the Dockerfile's final stage gives every container of it.
type image struct {
	entrypoint string // the binary
	env        map[string]string
}

func dockerImage(t *testing.T) (image, [][]instruction) {
	t.Helper()
	stages := dockerStages(readDeploy(t, "Dockerfile"))
	final := stages[len(stages)-1]
	img := image{env: dockerEnv(t, final)}
	for _, in := range final {
		if in.cmd == "ENTRYPOINT" {
			img.entrypoint = strings.Join(execForm(t, in), " ")
		}
	}
	if img.entrypoint != "/switchyard" {
		t.Fatalf("Dockerfile: ENTRYPOINT %q, want [\"/switchyard\"] (the subcommand comes from CMD or args)", img.entrypoint)
	}
	return img, stages
}

func TestDeployDockerfile(t *testing.T) {
	img, stages := dockerImage(t)
	final := stages[len(stages)-1]
	var cmd, health []string
	var expose, user, from string
	for _, in := range final {
		switch in.cmd {
		case "CMD":
			cmd = execForm(t, in)
		case "HEALTHCHECK":
			_, h, _ := strings.Cut(in.args, "CMD ")
			health = execForm(t, instruction{in.cmd, h})
		case "EXPOSE":
			expose = in.args
		case "USER":
			user = in.args
		case "FROM":
			from = in.args
		}
	}
	if !strings.HasPrefix(from, "gcr.io/distroless/static") && from != "scratch" {
		t.Errorf("Dockerfile: final stage FROM %s, want distroless/static or scratch", from)
	}
	if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("Dockerfile: USER %q, want a non-root user", user)
	}
	cfg := launch{name: "Dockerfile CMD", args: cmd, env: img.env}.check(t)
	if cmd[0] != "serve" {
		t.Errorf("Dockerfile: CMD %q, want serve", cmd)
	}
	if expose != listenPort(t, cfg) {
		t.Errorf("Dockerfile: EXPOSE %s, but the server listens on %s", expose, cfg.Server.Listen)
	}
	if len(health) < 2 || health[0] != img.entrypoint {
		t.Fatalf("Dockerfile: HEALTHCHECK CMD %q, want the binary's healthcheck", health)
	}
	launch{name: "Dockerfile HEALTHCHECK", args: health[1:], env: img.env}.check(t)
	u, _ := url.Parse(readyURL(cfg))
	checkProbe(t, "Dockerfile HEALTHCHECK", u.Path)
	checkGoBuild(t, slices.Concat(stages[:len(stages)-1]...))
}

// checkGoBuild checks the build stages' go build: static, trimmed, with
// the version variable the binary has, of a package that exists.
func checkGoBuild(t *testing.T, build []instruction) {
	t.Helper()
	_ = version // the variable -X sets; renaming it breaks this test
	wantX := "-X " + reflect.TypeFor[Env]().PkgPath() + ".version="
	for _, in := range build {
		if in.cmd != "RUN" || !strings.Contains(in.args, "go build") {
			continue
		}
		for _, want := range []string{"CGO_ENABLED=0", "-trimpath", wantX} {
			if !strings.Contains(in.args, want) {
				t.Errorf("Dockerfile: go build without %q: %s", want, in.args)
			}
		}
		f := strings.Fields(in.args)
		pkg := f[len(f)-1]
		if st, err := os.Stat(filepath.Join("..", "..", pkg)); err != nil || !st.IsDir() {
			t.Errorf("Dockerfile: go build %s: no such package directory", pkg)
		}
		return
	}
	t.Error("Dockerfile: no RUN go build before the final stage")
}

func TestDeploySystemd(t *testing.T) {
	u := parseUnit(t, readDeploy(t, "systemd/switchyard.service"))
	exec := strings.Fields(u.one(t, "Service", "ExecStart"))
	if exec[0] != "/usr/local/bin/switchyard" {
		t.Errorf("ExecStart runs %s", exec[0])
	}
	if got := u.one(t, "Service", "EnvironmentFile"); strings.TrimPrefix(got, "-") != "/etc/switchyard/env" {
		t.Errorf("EnvironmentFile=%s, want /etc/switchyard/env (deploy/systemd/env.example)", got)
	}
	cfg := launch{
		name:  "switchyard.service",
		args:  exec[1:],
		env:   envFile(readDeploy(t, "systemd/env.example")),
		files: map[string]string{"/etc/switchyard/switchyard.yaml": filepath.Join(deployDir, "systemd", "switchyard.yaml")},
	}.check(t)
	for key, want := range map[string]string{
		"ExecReload": "/bin/kill -HUP $MAINPID", "KillSignal": "SIGTERM", "Type": "simple",
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "User": "switchyard",
	} {
		if got := u.one(t, "Service", key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	stop, err := strconv.Atoi(u.one(t, "Service", "TimeoutStopSec"))
	if err != nil {
		t.Fatalf("TimeoutStopSec: want seconds: %v", err)
	}
	checkStopTimeout(t, "TimeoutStopSec", time.Duration(stop)*time.Second, cfg)
	// The database and the journal must be writable under ProtectSystem=strict.
	state := "/var/lib/" + u.one(t, "Service", "StateDirectory")
	writable := append([]string{state}, strings.Fields(u.one(t, "Service", "ReadWritePaths"))...)
	for what, dir := range map[string]string{
		"database.url":         filepath.Dir(cfg.Database.SQLitePath()),
		"metering.journal_dir": cfg.JournalDir(),
		"WorkingDirectory":     u.one(t, "Service", "WorkingDirectory"),
	} {
		if !under(dir, writable) {
			t.Errorf("%s %s is not under the writable %q", what, dir, writable)
		}
	}
}

// under reports whether path is one of dirs or inside one.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

func TestDeployNginx(t *testing.T) {
	conf := readDeploy(t, "nginx.conf")
	for name, want := range map[string]string{
		"proxy_buffering":    "off",
		"proxy_http_version": "1.1",
	} {
		if got := nginxDirectives(conf, name); len(got) != 1 || strings.Join(got[0], " ") != want {
			t.Errorf("nginx.conf: %s %q, want %s (SSE streams pass event by event)", name, got, want)
		}
	}
	next := nginxDirectives(conf, "proxy_next_upstream")
	if len(next) != 1 || !contains(next[0], "error") || contains(next[0], "non_idempotent") {
		t.Errorf("nginx.conf: proxy_next_upstream %q, want error (connect failures) and never non_idempotent (a POST that reached a replica is not replayed)", next)
	}
	body := nginxDirectives(conf, "client_max_body_size")
	if len(body) != 1 || body[0][0] != strconv.FormatInt(config.Default().Server.MaxBodyBytes>>20, 10)+"m" {
		t.Errorf("nginx.conf: client_max_body_size %q, want server.max_body_bytes (%d MiB)", body, config.Default().Server.MaxBodyBytes>>20)
	}
	if got := len(nginxUpstreams(conf)); got != 3 {
		t.Errorf("nginx.conf: %d upstream servers, want the 3 replicas", got)
	}
}

// nginxUpstreams returns the host:port of each upstream server.
func nginxUpstreams(conf string) []string {
	var out []string
	for _, s := range nginxDirectives(conf, "server") {
		if len(s) > 0 && strings.Contains(s[0], ":") {
			out = append(out, s[0])
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestCheckArgs(t *testing.T) {
	tests := []struct {
		args []string
		ok   bool
	}{
		{[]string{"serve"}, true},
		{[]string{"serve", "--config", "/etc/switchyard/switchyard.yaml"}, true},
		{[]string{"serve", "--config=/x.yaml", "--dev"}, true},
		{[]string{"serve", "--cfg", "/x.yaml"}, false}, // a renamed or mistyped flag
		{[]string{"serve", "extra"}, false},
		{[]string{"serve", "-h"}, false},
		{[]string{"migrate"}, true},
		{[]string{"healthcheck", "--url", "http://127.0.0.1:8080/readyz"}, true},
		{[]string{"keys", "revoke", "key_123"}, true},
		{[]string{"keys", "revoke"}, true}, // the ID is checked after parsing
		{[]string{"keys", "rm", "key_123"}, false},
		{[]string{"keys", "list", "--account", "a@example.com", "--json"}, true},
		{[]string{"usage", "--account", "a@example.com", "--csv", "--xml"}, false},
		{[]string{"deploy"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		err := checkArgs(tt.args)
		if (err == nil) != tt.ok {
			t.Errorf("checkArgs(%q) = %v, want ok %v", tt.args, err, tt.ok)
		}
	}
}
