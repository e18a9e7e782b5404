package app_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// redisServer is a private redis-server that a test may kill or freeze:
// never the shared one the other tests use.
type redisServer struct {
	cmd  *exec.Cmd
	port int
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and returns once it answers; it skips t when redis-server
// is not installed, and kills the server when t ends.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed: a private Redis cannot be started")
	}
	r := &redisServer{port: freePort(t)}
	r.cmd = exec.Command(bin, "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	})
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("private redis-server did not answer within 10 s")
		}
	}
	return r
}

func (r *redisServer) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// kill kills the server at once, as a crash or OOM kill would: its
// connections are reset and new ones refused.
func (r *redisServer) kill() { r.cmd.Process.Kill() }

// freeze stops the server without closing anything, as a hung host or a
// network partition would: connections open, nothing answers.
func (r *redisServer) freeze() { r.cmd.Process.Signal(syscall.SIGSTOP) }

// TestRateLimitsWhenRedisDies: three replicas (limits.replicas: 3) share
// a key's RPM of 60 in a private Redis, which dies in the middle of a
// load. Issue 13: the per-process fallback admitted the full limit in
// every replica (531 of ~118 expected) and requests stalled 1-3.5 s while
// Redis died. Now each replica falls back to ceil(60/3) = 20, so the
// replicas together admit about the limit while Redis is away, and no
// request waits on the dead Redis for more than its short timeouts.
func TestRateLimitsWhenRedisDies(t *testing.T) {
	if os.Getenv("SWITCHYARD_TEST_REDIS_URL") == "" {
		t.Skip("SWITCHYARD_TEST_REDIS_URL not set: the Redis outage test runs with the Redis suite")
	}
	for _, tc := range []struct {
		name  string
		fault func(*redisServer)
	}{
		{"killed", (*redisServer).kill},
		{"frozen", (*redisServer).freeze},
	} {
		t.Run(tc.name, func(t *testing.T) { testRedisDeath(t, tc.fault) })
	}
}

const (
	deathRPM      = 60
	deathReplicas = 3
	deathClients  = 12
)

func testRedisDeath(t *testing.T, fault func(*redisServer)) {
	r := startRedis(t)
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	db := storetest.SQLiteURL(t)
	env := map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key", "SWITCHYARD_REDIS_URL": r.URL()}
	var urls []string
	var gs []*gateway
	for range deathReplicas {
		g := startWith(t, db, env, func(c *config.Config) {
			c.Limits.Replicas = deathReplicas
			c.Redis.Timeout = config.Default().Redis.Timeout
		})
		urls = append(urls, g.URL)
		gs = append(gs, g)
	}
	first := gs[0]
	key, keyID := first.newKey(t, "redis-death@example.com")
	acct, err := first.Store.AccountByEmail(context.Background(), "redis-death@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Store.SetLimits(context.Background(), store.LimitsUpdate{AccountID: acct.ID, KeyID: keyID, RPM: ptr[int64](deathRPM)}); err != nil {
		t.Fatal(err)
	}

	before := hammer(t, urls, key, 500*time.Millisecond)
	fault(r)
	during := hammer(t, urls, key, 1500*time.Millisecond)
	t.Logf("Redis up: %v; Redis down: %v", before, during)

	// Through Redis the replicas admit the limit's burst, plus one a
	// second. Down, each admits its share, ceil(60/3) = 20, from a full
	// bucket (buckets are not copied), plus its share's refill: 60 in
	// all, +1 a second, +2 for requests that Redis answered before it
	// died. Three full limits would be 180.
	secs := int64(before.window/time.Second + during.window/time.Second + 1)
	if max := deathRPM + secs; before.ok > max {
		t.Errorf("with Redis up the replicas admitted %d, want at most %d", before.ok, max)
	}
	if max := deathRPM + 2 + secs; during.ok > max || during.ok < deathRPM/2 {
		t.Errorf("with Redis down the replicas admitted %d, want %d to %d (the limit, shared out)", during.ok, deathRPM/2, max)
	}
	for i, g := range gs {
		if st, _ := g.App.RedisStats(); st.Up || st.Outages < 1 {
			t.Errorf("replica %d: Redis stats %+v, want down, the outage counted", i, st)
		}
	}
	// A request that meets the outage waits for Redis at most
	// redis.timeout (250 ms); the bound leaves room for a loaded machine
	// (-race on two cores), whose own latency, seen with Redis up, counts
	// twice. It used to be 2.7 s (killed) and 15 s (frozen).
	bound := max(time.Second, 2*before.slowest)
	if during.slowest > bound {
		t.Errorf("with Redis down a request took %v (%d over 500 ms), want each under %v", during.slowest, during.slow, bound)
	}
}

// load is what hammer saw.
type load struct {
	ok, refused int64
	slowest     time.Duration // the longest request
	slow        int64         // requests over 500 ms
	window      time.Duration // from the first request to the last answer
}

func (l load) String() string {
	return fmt.Sprintf("%d admitted, %d refused, slowest %v, %d over 500 ms, in %v", l.ok, l.refused, l.slowest, l.slow, l.window)
}

// hammer sends chat requests with key from deathClients clients spread
// over urls for d, and counts and times the answers.
func hammer(t *testing.T, urls []string, key string, d time.Duration) load {
	tr := &http.Transport{MaxIdleConnsPerHost: deathClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var ok, refused, slow, slowest atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range deathClients {
		wg.Go(func() {
			for time.Since(start) < d {
				req, _ := http.NewRequest("POST", urls[i%len(urls)]+"/v1/chat/completions", strings.NewReader(chatBody("gpt-4o-mini", "hi", false)))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				sent := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				took := time.Since(sent)
				if took > 500*time.Millisecond {
					slow.Add(1)
				}
				for prev := slowest.Load(); int64(took) > prev && !slowest.CompareAndSwap(prev, int64(took)); prev = slowest.Load() {
				}
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
				case 429:
					refused.Add(1)
				default:
					t.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	return load{ok: ok.Load(), refused: refused.Load(), slowest: time.Duration(slowest.Load()), slow: slow.Load(), window: time.Since(start)}
}
