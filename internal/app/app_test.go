package app_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchyard-gw/switchyard/internal/apikey"
	"github.com/switchyard-gw/switchyard/internal/app"
	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
)

// catalogDay is the date the catalogue was written for.
var catalogDay = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// gateway is a running app on a loopback port.
type gateway struct {
	URL   string
	Store *store.Store
	App   *app.App
	// applied is the position of the change feed the app has applied.
	applied *atomic.Int64
}

func start(t *testing.T, dbURL string) *gateway {
	t.Helper()
	return startWith(t, dbURL, nil, nil)
}

// startWith starts a gateway whose configuration is loaded from env (as
// the environment would give it) and then adjusted by mut (may be nil).
func startWith(t testing.TB, dbURL string, env map[string]string, mut func(*config.Config)) *gateway {
	t.Helper()
	return startLogged(t, dbURL, env, mut, slog.New(slog.DiscardHandler))
}

// startLogged is startWith with the app's logger.
func startLogged(t testing.TB, dbURL string, env map[string]string, mut func(*config.Config), log *slog.Logger) *gateway {
	t.Helper()
	c, err := config.Load("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cfg := *c
	// Model lifecycles are judged on the catalogue's date, so tests do
	// not change meaning when a model's sunset passes.
	cfg.Now = func() time.Time { return catalogDay }
	// Tests that count exactly through the shared Redis must not see it
	// as down when a loaded machine (-race, two cores) answers late: the
	// Redis outage test sets the short timeout back.
	cfg.Redis.Timeout = 5 * time.Second
	// Changes made through the store reach the app within a few
	// milliseconds, for the tests that wait for them.
	cfg.Auth.ChangePollInterval = 5 * time.Millisecond
	if mut != nil {
		mut(&cfg)
	}
	if cfg.Redis.Prefix == "" {
		// Each test's Redis keys apart from the others': the replicas of
		// one test share them, and the deployments' shared health (a
		// cooldown one test's 429 left for seconds) reaches no other.
		cfg.Redis.Prefix = redisTestPrefix(t)
	}
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Server.ShutdownGrace = 2 * time.Second
	cfg.Database.URL = dbURL
	if cfg.Metering.JournalDir == "" && cfg.Database.IsPostgres() {
		// Not ./switchyard-usage-journal in the source tree.
		cfg.Metering.JournalDir = filepath.Join(t.TempDir(), "journal")
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, &cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := a.Listen()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		a.Close()
	})
	g := &gateway{URL: "http://" + addr.String(), Store: a.Store(), App: a}
	g.followChanges(t)
	return g
}

// newKey creates an account (once per email) and a key, returning the key
// and its ID.
func (g *gateway) newKey(t testing.TB, email string) (string, string) {
	t.Helper()
	ctx := context.Background()
	acct, err := g.Store.AccountByEmail(ctx, email)
	if err != nil {
		acct, err = g.Store.CreateAccount(ctx, store.NewAccount{Email: email})
		if err != nil {
			t.Fatal(err)
		}
	}
	full := apikey.Generate()
	h, _ := apikey.Parse(full)
	k, err := g.Store.CreateKey(ctx, store.NewKey{AccountID: acct.ID, Name: "test", Hash: h.String(), Hint: apikey.Hint(full)})
	if err != nil {
		t.Fatal(err)
	}
	return full, k.ID
}

type errorBody struct {
	Error map[string]any `json:"error"`
}

func do(t *testing.T, method, url string, header map[string]string, body string) (*http.Response, errorBody, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var eb errorBody
	json.Unmarshal(raw, &eb)
	return resp, eb, string(raw)
}

func TestEvery401(t *testing.T) {
	g := start(t, storetest.SQLiteURL(t))
	good, _ := g.newKey(t, "a@example.com")
	revoked, revokedID := g.newKey(t, "a@example.com")
	if _, err := g.Store.RevokeKey(context.Background(), revokedID); err != nil {
		t.Fatal(err)
	}
	secret := good[len(apikey.Prefix):]
	tests := []struct {
		name   string
		header []string // Authorization values; nil = none
	}{
		{"missing", nil},
		{"empty", []string{""}},
		{"bearer only", []string{"Bearer"}},
		{"basic scheme", []string{"Basic " + good}},
		{"no scheme", []string{good}},
		{"wrong prefix", []string{"Bearer sk-" + secret}},
		{"openai prefix", []string{"Bearer sk-proj-" + secret}},
		{"short", []string{"Bearer " + good[:len(good)-1]}},
		{"long", []string{"Bearer " + good + "a"}},
		{"bad character", []string{"Bearer " + good[:len(good)-1] + "_"}},
		{"inner whitespace", []string{"Bearer " + good[:20] + " " + good[21:]}},
		{"double space", []string{"Bearer  " + good}},
		{"case changed", []string{"Bearer " + apikey.Prefix + strings.ToLower(secret)}},
		{"unknown", []string{"Bearer " + apikey.Generate()}},
		{"unknown short form", []string{"Bearer sg-" + apikey.Generate()[len(apikey.Prefix):]}},
		{"revoked", []string{"Bearer " + revoked}},
		{"revoked short form", []string{"Bearer sg-" + revoked[len(apikey.Prefix):]}},
		{"two headers", []string{"Bearer " + good, "Bearer " + good}},
	}
	routes := []struct{ method, path, body string }{
		{"POST", "/v1/chat/completions", `{"model":"gpt-4o-mini","messages":[]}`},
		{"POST", "/v1/completions", `{"model":"gpt-3.5-turbo-instruct","prompt":"x"}`},
		{"POST", "/v1/embeddings", `{"model":"text-embedding-3-small","input":"x"}`},
		{"GET", "/v1/models", ""},
		{"GET", "/v1/models/gpt-4o-mini", ""},
		{"POST", "/v1/responses", `{"model":"gpt-4o-mini","input":"x"}`},
		{"POST", "/v1/responses/input_tokens", `{"model":"gpt-4o-mini","input":"x"}`},
		{"GET", "/v1/responses/resp_x", ""},
		{"DELETE", "/v1/responses/resp_x", ""},
		{"GET", "/v1/responses/resp_x/input_items", ""},
		{"POST", "/v1/responses/resp_x/cancel", ""},
	}
	for _, tt := range tests {
		for _, rt := range routes {
			t.Run(tt.name+" "+rt.path, func(t *testing.T) {
				req, _ := http.NewRequest(rt.method, g.URL+rt.path, strings.NewReader(rt.body))
				req.Header.Set("Content-Type", "application/json")
				for _, v := range tt.header {
					req.Header.Add("Authorization", v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 401 {
					t.Fatalf("status %d, want 401: %s", resp.StatusCode, raw)
				}
				var eb struct {
					Error struct {
						Message string  `json:"message"`
						Type    string  `json:"type"`
						Param   *string `json:"param"`
						Code    string  `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(raw, &eb); err != nil {
					t.Fatal(err)
				}
				if eb.Error.Type != "invalid_request_error" || eb.Error.Code != "invalid_api_key" || eb.Error.Param != nil || eb.Error.Message == "" {
					t.Errorf("body %s", raw)
				}
				if !strings.Contains(string(raw), `"param":null`) {
					t.Errorf("param key missing or not null: %s", raw)
				}
				if strings.Contains(string(raw), secret) || strings.Contains(string(raw), secret[:8]) {
					t.Errorf("error message repeats the key: %s", raw)
				}
			})
		}
	}
	t.Run("good key passes", func(t *testing.T) {
		resp, eb, raw := do(t, "POST", g.URL+"/v1/chat/completions",
			map[string]string{"Authorization": "Bearer " + good, "Content-Type": "application/json"},
			`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`)
		if resp.StatusCode != 404 || eb.Error["message"] != "Model not found" {
			t.Errorf("got %d %s, want 404 Model not found (no provider configured yet)", resp.StatusCode, raw)
		}
		resp, _, raw = do(t, "GET", g.URL+"/v1/models", map[string]string{"Authorization": "Bearer sg-" + secret}, "")
		if resp.StatusCode != 200 || !strings.Contains(raw, `"object":"list"`) {
			t.Errorf("models with sg- form: %d %s", resp.StatusCode, raw)
		}
	})
}

// TestRevokeTakesEffectOnNextRequest revokes in the serving process: the
// very next request must be refused.
func TestRevokeTakesEffectOnNextRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		g := start(t, b.URL)
		key, id := g.newKey(t, "a@example.com")
		hdr := map[string]string{"Authorization": "Bearer " + key}
		for range 3 { // warm the cache
			if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 200 {
				t.Fatalf("before revoke: %d %s", resp.StatusCode, raw)
			}
		}
		if _, err := g.App.RevokeKey(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 401 {
			t.Fatalf("next request after revoke: %d %s", resp.StatusCode, raw)
		}
	})
}

// TestRevokeByAnotherHandle revokes through a second store handle on the
// same database, as another process would, and measures how long the
// server takes to refuse the key.
func TestRevokeByAnotherHandle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, b storetest.Backend) {
		g := start(t, b.URL)
		other := storetest.Open(t, b.URL)
		key, id := g.newKey(t, "a@example.com")
		hdr := map[string]string{"Authorization": "Bearer " + key}
		if resp, _, raw := do(t, "GET", g.URL+"/v1/models", hdr, ""); resp.StatusCode != 200 {
			t.Fatalf("before revoke: %d %s", resp.StatusCode, raw)
		}
		if _, err := other.RevokeKey(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		waitFor(t, 5*time.Second, "the revoked key refused", func() bool {
			resp, _, _ := do(t, "GET", g.URL+"/v1/models", hdr, "")
			return resp.StatusCode == 401
		})
		t.Logf("%s: revocation effective after %v", b.Name, time.Since(start))
	})
}

// redisRun names this test process in the Redis keys of its tests.
var redisRun = strings.ToLower(rand.Text()[:8])

// redisTestPrefix is the Redis prefix of the apps t starts: its own, the
// same for every replica it starts, and another in each process.
func redisTestPrefix(t testing.TB) string {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return fmt.Sprintf("switchyard-test:%s:%x:", redisRun, h.Sum64())
}
