package app_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// pgServer is a private PostgreSQL cluster that a test may stop and
// start: never the shared server the other tests use.
type pgServer struct {
	bin  string // the directory of initdb and pg_ctl
	dir  string // holds data/, the log and the socket
	port int
	// runAs is the user pg_ctl runs as when the test runs as root, which
	// PostgreSQL refuses.
	runAs string
}

// startPostgres creates and starts a cluster in a temporary directory,
// trusting local connections, on a free loopback port. It skips t when
// PostgreSQL's server binaries are not installed, and stops and removes
// the cluster when t ends.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	p := &pgServer{bin: postgresBin()}
	if p.bin == "" {
		t.Skip("initdb and pg_ctl not found (/usr/lib/postgresql/*/bin or PATH): a private PostgreSQL cannot be started")
	}
	dir, err := os.MkdirTemp("", "switchyard-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		if err := p.giveTo("postgres"); err != nil {
			t.Skipf("running as root without a usable postgres user (%v): a private PostgreSQL cannot be started", err)
		}
	}
	p.port = freePort(t)
	p.run(t, "initdb", "-D", p.data(), "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8")
	p.start(t)
	t.Cleanup(func() { p.pgCtl("-m", "immediate", "stop") })
	return p
}

// postgresBin returns the newest /usr/lib/postgresql/*/bin holding initdb
// and pg_ctl, or the directory of initdb on PATH, or "".
func postgresBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return pgVersion(b) - pgVersion(a) })
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d
			}
		}
	}
	return ""
}

func pgVersion(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

// giveTo makes the cluster's directory the user's and has the server
// binaries run as that user.
func (p *pgServer) giveTo(name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if _, err := exec.LookPath("runuser"); err != nil {
		return err
	}
	p.runAs = name
	return os.Chown(p.dir, uid, gid)
}

func (p *pgServer) data() string { return filepath.Join(p.dir, "data") }

// URL is the cluster's postgres database.
func (p *pgServer) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *pgServer) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.runAs != "" {
		return exec.Command("runuser", append([]string{"-u", p.runAs, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (p *pgServer) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := p.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func (p *pgServer) pgCtl(args ...string) ([]byte, error) {
	args = append([]string{"-D", p.data(), "-w", "-t", "30"}, args...)
	return p.command("pg_ctl", args...).CombinedOutput()
}

// start starts the server and returns once it accepts connections.
func (p *pgServer) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir)
	if out, err := p.pgCtl("-l", filepath.Join(p.dir, "log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// stop stops the server as an operator's restart does (fast shutdown:
// every session is terminated) and returns once it has exited.
func (p *pgServer) stop(t *testing.T) {
	t.Helper()
	if out, err := p.pgCtl("-m", "fast", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRevokeAfterPostgresRestart: after PostgreSQL restarts (every
// session, the server's LISTEN among them, is terminated), a key revoked
// by another process as soon as the database is back is refused within
// 100 ms, as before the restart (issue 13: it took up to 871 ms, bounded
// by a 5 s reconnect backoff and a 5 s safety poll). It runs with the
// PostgreSQL suite (SWITCHYARD_TEST_POSTGRES_URL set) on a private
// cluster; the shared server is never stopped.
func TestRevokeAfterPostgresRestart(t *testing.T) {
	if os.Getenv(storetest.PostgresEnv) == "" {
		t.Skipf("%s not set: the PostgreSQL restart test runs with the PostgreSQL suite", storetest.PostgresEnv)
	}
	pg := startPostgres(t)
	g := start(t, pg.URL())
	other := storetest.Open(t, pg.URL()) // another process: the CLI, or a replica
	const rounds = 2
	var keys, ids [rounds]string
	for i := range rounds {
		// One account each: revoking one key must not drop the other
		// from the cache by way of its account.
		keys[i], ids[i] = g.newKey(t, fmt.Sprintf("restart%d@example.com", i))
	}
	// Creating a key is a change too, and it drops the key from the cache
	// when it arrives: a key revoked after them is refused once they have
	// all arrived, and only then are the keys cached for good.
	last, lastID := g.newKey(t, "sentinel@example.com")
	if _, err := other.RevokeKey(context.Background(), lastID); err != nil {
		t.Fatal(err)
	}
	waitRefused(t, g.URL, last, 5*time.Second)
	for i := range rounds {
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", bearer(keys[i]), ""); resp.StatusCode != 200 {
			t.Fatalf("key %d before the restart: %d %s", i, resp.StatusCode, raw)
		}
	}
	for i := range rounds {
		pg.stop(t)
		// The outage (with the stop and start, about 3.5 s) lasts long
		// enough for a doubling reconnect backoff to have grown to
		// seconds: the old one retried 3.1 s and 6.3 s after the loss.
		time.Sleep(2500 * time.Millisecond)
		pg.start(t)
		// A key the server has never seen is looked up in the database:
		// its 401 says the server reads the restarted database again,
		// with a warm connection and catalogue, so that what is measured
		// next is how long the revocation takes to arrive.
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", bearer(apikey.Generate()), ""); resp.StatusCode != 401 {
			t.Fatalf("unknown key after restart %d: %d %s", i, resp.StatusCode, raw)
		}
		if _, err := other.RevokeKey(context.Background(), ids[i]); err != nil {
			t.Fatalf("revoke after restart %d: %v", i, err)
		}
		took := waitRefused(t, g.URL, keys[i], 2*time.Second)
		t.Logf("restart %d: revoked key refused %v after the revoke", i, took)
		if took > 100*time.Millisecond {
			t.Errorf("restart %d: revoked key refused only %v after the revoke, want within 100 ms", i, took)
		}
	}
}

func bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

// waitRefused sends requests with key until one is refused with 401 and
// returns how long that took; it fails t after limit.
func waitRefused(t *testing.T, base, key string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		resp, _, raw := do(t, "GET", base+"/v1/models", bearer(key), "")
		took := time.Since(start)
		switch {
		case resp.StatusCode == 401:
			return took
		case resp.StatusCode != 200:
			t.Fatalf("%v after the revoke: %d %s", took, resp.StatusCode, raw)
		case took > limit:
			t.Fatalf("revoked key still accepted %v after the revoke", took)
		}
		time.Sleep(time.Millisecond)
	}
}
