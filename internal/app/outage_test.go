package app_test

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
	"github.com/switchyard-gw/switchyard/internal/testing/tcpproxy"
)

// TestNoUsageLostWhenPostgresGoesAway stops PostgreSQL (a proxy in front
// of it cuts every connection and refuses new ones) in the middle of a
// load, brings it back, and counts: rows = requests answered.
func TestNoUsageLostWhenPostgresGoesAway(t *testing.T) {
	pgURL := storetest.PostgresURL(t) // skips without PostgreSQL
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := tcpproxy.Start(t, u.Host)
	u.Host = proxy.Addr()
	g := testOutage(t, u.String(), proxy.SetDown)
	if g.App.Meter().Stats().SinkFailures == 0 {
		t.Error("the writer never saw the database fail: the outage was not real")
	}
}

// TestNoUsageLostWhenSQLiteIsLocked holds SQLite's write lock from
// another connection in the middle of a load: no write can succeed until
// it is released.
func TestNoUsageLostWhenSQLiteIsLocked(t *testing.T) {
	path := storetest.SQLiteURL(t)
	var locker *sql.Conn
	var lockDB *sql.DB
	testOutage(t, path, func(down bool) {
		ctx := context.Background()
		if down {
			var err error
			lockDB, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			if locker, err = lockDB.Conn(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := locker.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
				t.Fatal(err)
			}
			return
		}
		locker.ExecContext(ctx, "ROLLBACK")
		locker.Close()
		lockDB.Close()
	})
}

func testOutage(t *testing.T, dbURL string, setDown func(bool)) *gateway {
	up := fakeopenai.Start(fakeopenai.Options{})
	t.Cleanup(up.Close)
	g := startWith(t, dbURL, map[string]string{"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key"}, nil)
	key, _ := g.newKey(t, "outage@example.com")
	acct, _ := g.Store.AccountByEmail(context.Background(), "outage@example.com")
	hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	if resp, _, raw := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "warm", false)); resp.StatusCode != 200 {
		t.Fatalf("warm-up: %d %s", resp.StatusCode, raw)
	}

	var sent, ok atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				sent.Add(1)
				resp, _, _ := do(t, "POST", g.URL+"/v1/chat/completions", hdr, chatBody("gpt-4o-mini", "hi", i%2 == 0))
				if resp.StatusCode == 200 {
					ok.Add(1)
				}
			}
		})
	}
	waitFor(t, 5*time.Second, "traffic answered before the outage", func() bool { return ok.Load() >= 8 })
	setDown(true)
	// Nothing to wait for: the outage lasts this long on purpose, longer
	// than a request that needed the database would wait for it.
	time.Sleep(1500 * time.Millisecond)
	duringOutage := ok.Load()
	setDown(false)
	waitFor(t, 5*time.Second, "traffic answered after the outage", func() bool { return ok.Load() >= duringOutage+8 })
	close(stop)
	wg.Wait()
	if ok.Load() != sent.Load() {
		t.Errorf("%d of %d requests answered 200: the database outage reached the request path", ok.Load(), sent.Load())
	}
	if duringOutage == 0 {
		t.Error("no request was answered while the database was away")
	}
	waitRows(t, g.Store, acct.ID, sent.Load()+1)
	t.Logf("%d requests, all recorded once; meter %+v", sent.Load()+1, g.App.Meter().Stats())
	return g
}
